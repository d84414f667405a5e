#include "hypervisor/DomainState.h"

#include <libvirt/libvirt.h>

namespace sbw {

DomainState domainStateFrom(int state, int reason, bool hasManagedSave)
{
    switch (state) {
    case VIR_DOMAIN_RUNNING:
    case VIR_DOMAIN_BLOCKED:
        return DomainState::Running;
    case VIR_DOMAIN_PAUSED:
        return reason == VIR_DOMAIN_PAUSED_STARTING_UP ? DomainState::StartingUp
                                                       : DomainState::Paused;
    case VIR_DOMAIN_SHUTDOWN:
        return DomainState::ShuttingDown;
    case VIR_DOMAIN_SHUTOFF:
        if (hasManagedSave)
            return DomainState::Hibernated;
        return reason == VIR_DOMAIN_SHUTOFF_CRASHED ? DomainState::Crashed : DomainState::ShutOff;
    case VIR_DOMAIN_CRASHED:
        return DomainState::Crashed;
    case VIR_DOMAIN_PMSUSPENDED:
        return DomainState::Suspended;
    default:
        return DomainState::Other;
    }
}

QString domainStateName(DomainState state)
{
    switch (state) {
    case DomainState::Running:
        return QStringLiteral("running");
    case DomainState::StartingUp:
        return QStringLiteral("starting up");
    case DomainState::Paused:
        return QStringLiteral("paused");
    case DomainState::Hibernated:
        return QStringLiteral("hibernated");
    case DomainState::ShutOff:
        return QStringLiteral("shut off");
    case DomainState::ShuttingDown:
        return QStringLiteral("shutting down");
    case DomainState::Crashed:
        return QStringLiteral("crashed");
    case DomainState::Suspended:
        return QStringLiteral("suspended");
    case DomainState::Other:
        break;
    }
    return QStringLiteral("other");
}

bool isHalted(DomainState state)
{
    return state != DomainState::Running && state != DomainState::ShuttingDown &&
           state != DomainState::Other;
}

} // namespace sbw
