#pragma once

#include "hypervisor/DomainState.h"

#include <QMetaType>
#include <QString>

namespace sbw {

/// What a workspace is doing, read from libvirt (virDomainGetState, virDomainHasManagedSaveImage,
/// the guest-agent channel state of the live domain XML), never guessed from what the workbench
/// asked for.
enum class WorkspaceState
{
    Unknown,    ///< the state could not be read (connection to libvirt lost, domain vanished)
    Stopped,    ///< shut off, no managed save image
    Starting,   ///< running, but the guest agent has not connected yet; or being restored
    Running,    ///< running with its guest agent connected
    Paused,     ///< vCPUs stopped, memory kept in RAM (virDomainSuspend, or a paused checkpoint)
    Hibernated, ///< shut off with a managed save image (virDomainManagedSave): wakes where it was
    Crashed     ///< the guest crashed (VIR_DOMAIN_CRASHED, or shut off with reason "crashed")
};

/// A workspace's state from its domain's: a running domain is Starting until the live XML shows
/// the org.qemu.guest_agent.0 channel connected (`agentConnected`), and Running from then on.
WorkspaceState workspaceStateFrom(DomainState domain, bool agentConnected);

/// "stopped", "starting", "running", "paused", "hibernated", "crashed", "unknown": stable
/// words, used in `sbw ws list` and its JSON.
QString workspaceStateName(WorkspaceState state);

// What may be asked of a workspace in each state. The UI enables its controls from these, and
// Workspace refuses the call otherwise.
bool canStart(WorkspaceState state);      ///< Stopped, Crashed
bool canStop(WorkspaceState state);       ///< Starting, Running, Paused
bool canPause(WorkspaceState state);      ///< Running
bool canResume(WorkspaceState state);     ///< Paused
bool canHibernate(WorkspaceState state);  ///< Running, Paused
bool canWake(WorkspaceState state);       ///< Hibernated
bool canCheckpoint(WorkspaceState state); ///< Running, Paused (disk and memory)
bool canRevert(WorkspaceState state);     ///< any known state but Hibernated and Starting
bool canFork(WorkspaceState state);       ///< any known state but Starting (no checkpoint yet)
bool canDelete(WorkspaceState state);     ///< any known state
bool canExec(WorkspaceState state);       ///< Running, Starting (exec waits for the guest)

} // namespace sbw

Q_DECLARE_METATYPE(sbw::WorkspaceState)
