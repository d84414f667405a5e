#pragma once

#include <QString>

namespace sbw {

/// What a domain is doing, read from libvirt: virDomainGetState's state and reason, plus whether
/// a managed-save image exists. The one reading of libvirt's states; the statistics show it
/// as is, and a workspace's state (WorkspaceState) is made from it and the guest agent.
enum class DomainState
{
    Running,      ///< VIR_DOMAIN_RUNNING (and VIR_DOMAIN_BLOCKED, which QEMU does not report)
    /// paused while QEMU starts (VIR_DOMAIN_PAUSED_STARTING_UP): every start, a cold boot as
    /// well as a wake from a managed save or a revert whose memory is loading
    StartingUp,
    Paused,       ///< suspended by virDomainSuspend or by libvirt (I/O error, migration, …)
    Hibernated,   ///< shut off with a managed-save image (resumes where it stopped)
    ShutOff,      ///< shut off without one
    ShuttingDown, ///< VIR_DOMAIN_SHUTDOWN: the guest is powering off
    Crashed,      ///< VIR_DOMAIN_CRASHED, or shut off with reason VIR_DOMAIN_SHUTOFF_CRASHED
    Suspended,    ///< guest power-management suspend (VIR_DOMAIN_PMSUSPENDED)
    Other         ///< VIR_DOMAIN_NOSTATE or a state this libvirt added later
};

/// Maps virDomainGetState's `state` (virDomainState) and `reason` (its per-state reason enum)
/// and virDomainHasManagedSaveImage's answer to a DomainState.
DomainState domainStateFrom(int state, int reason, bool hasManagedSave);

/// "running", "starting up", "paused", "hibernated", "shut off", "shutting down", "crashed",
/// "suspended", "other" (the words `sbw stats` prints and --json writes).
QString domainStateName(DomainState state);

/// True for states in which the guest makes no progress: restoring, paused, hibernated, shut
/// off, crashed, suspended. Graphs shade these spans.
bool isHalted(DomainState state);

} // namespace sbw
