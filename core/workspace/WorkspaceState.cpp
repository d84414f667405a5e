#include "workspace/WorkspaceState.h"

#include <libvirt/libvirt.h>

namespace sbw {

WorkspaceState workspaceStateFrom(int state, int reason, bool hasManagedSave, bool agentConnected)
{
    switch (state) {
    case VIR_DOMAIN_RUNNING:
        return agentConnected ? WorkspaceState::Running : WorkspaceState::Starting;
    case VIR_DOMAIN_BLOCKED:
        return WorkspaceState::Running;
    case VIR_DOMAIN_PAUSED:
        // A restore (wake, revert) runs with paused vCPUs until the memory is loaded.
        return reason == VIR_DOMAIN_PAUSED_STARTING_UP ? WorkspaceState::Starting
                                                       : WorkspaceState::Paused;
    case VIR_DOMAIN_PMSUSPENDED:
        return WorkspaceState::Paused;
    case VIR_DOMAIN_SHUTDOWN:
        return WorkspaceState::Running; // shutting down: still running until it is off
    case VIR_DOMAIN_SHUTOFF:
        if (hasManagedSave)
            return WorkspaceState::Hibernated;
        return reason == VIR_DOMAIN_SHUTOFF_CRASHED ? WorkspaceState::Crashed
                                                    : WorkspaceState::Stopped;
    case VIR_DOMAIN_CRASHED:
        return WorkspaceState::Crashed;
    default:
        return WorkspaceState::Unknown;
    }
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

bool canDelete(WorkspaceState s)
{
    return s != WorkspaceState::Unknown;
}

bool canExec(WorkspaceState s)
{
    return s == WorkspaceState::Running || s == WorkspaceState::Starting;
}

} // namespace sbw
