#include "stats/StatsRecord.h"

namespace sbw {

QString stateName(SandboxState state)
{
    switch (state) {
    case SandboxState::Running:
        return QStringLiteral("running");
    case SandboxState::Paused:
        return QStringLiteral("paused");
    case SandboxState::Hibernated:
        return QStringLiteral("hibernated");
    case SandboxState::ShutOff:
        return QStringLiteral("shut off");
    case SandboxState::ShuttingDown:
        return QStringLiteral("shutting down");
    case SandboxState::Crashed:
        return QStringLiteral("crashed");
    case SandboxState::Suspended:
        return QStringLiteral("suspended");
    case SandboxState::Other:
        break;
    }
    return QStringLiteral("other");
}

bool isHalted(SandboxState state)
{
    return state != SandboxState::Running && state != SandboxState::ShuttingDown &&
           state != SandboxState::Other;
}

} // namespace sbw
