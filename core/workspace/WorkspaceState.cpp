#include "workspace/WorkspaceState.h"

namespace sbw {

WorkspaceState workspaceStateFrom(DomainState domain, bool agentConnected)
{
    switch (domain) {
    case DomainState::Running:
        return agentConnected ? WorkspaceState::Running : WorkspaceState::Starting;
    case DomainState::ShuttingDown:
        return WorkspaceState::Running; // still running until it is off
    case DomainState::StartingUp: // vCPUs wait until QEMU is set up (and a wake's memory is in)
        return WorkspaceState::Starting;
    case DomainState::Paused:
    case DomainState::Suspended:
        return WorkspaceState::Paused;
    case DomainState::Hibernated:
        return WorkspaceState::Hibernated;
    case DomainState::ShutOff:
        return WorkspaceState::Stopped;
    case DomainState::Crashed:
        return WorkspaceState::Crashed;
    case DomainState::Other:
        break;
    }
    return WorkspaceState::Unknown;
}

QString workspaceStateName(WorkspaceState state)
{
    switch (state) {
    case WorkspaceState::Stopped:
        return QStringLiteral("stopped");
    case WorkspaceState::Starting:
        return QStringLiteral("starting");
    case WorkspaceState::Running:
        return QStringLiteral("running");
    case WorkspaceState::Paused:
        return QStringLiteral("paused");
    case WorkspaceState::Hibernated:
        return QStringLiteral("hibernated");
    case WorkspaceState::Crashed:
        return QStringLiteral("crashed");
    case WorkspaceState::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

bool canStart(WorkspaceState s)
{
    return s == WorkspaceState::Stopped || s == WorkspaceState::Crashed;
}

bool canStop(WorkspaceState s)
{
    return s == WorkspaceState::Starting || s == WorkspaceState::Running ||
           s == WorkspaceState::Paused;
}

bool canPause(WorkspaceState s)
{
    return s == WorkspaceState::Running;
}

bool canResume(WorkspaceState s)
{
    return s == WorkspaceState::Paused;
}

bool canHibernate(WorkspaceState s)
{
    return s == WorkspaceState::Running || s == WorkspaceState::Paused;
}

bool canWake(WorkspaceState s)
{
    return s == WorkspaceState::Hibernated;
}

bool canCheckpoint(WorkspaceState s)
{
    return s == WorkspaceState::Running || s == WorkspaceState::Paused;
}

bool canRevert(WorkspaceState s)
{
    return s == WorkspaceState::Stopped || s == WorkspaceState::Running ||
           s == WorkspaceState::Paused || s == WorkspaceState::Crashed;
}

bool canFork(WorkspaceState s)
{
    return s != WorkspaceState::Unknown && s != WorkspaceState::Starting;
}

bool canDelete(WorkspaceState s)
{
    return s != WorkspaceState::Unknown;
}

bool canExec(WorkspaceState s)
{
    return s == WorkspaceState::Running || s == WorkspaceState::Starting;
}

} // namespace sbw
