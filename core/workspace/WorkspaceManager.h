#pragma once

#include "base/Expected.h"
#include "workspace/WorkspaceRecord.h"
#include "workspace/WorkspaceState.h"

#include <QList>
#include <QObject>
#include <map>
#include <memory>

namespace sbw {

class HypervisorConnection;
class Workspace;

/// Every workspace on one libvirt connection, found by the metadata of its domain (other
/// domains are never touched), with its true state. Closing and reopening the workbench finds
/// them again the same way (reattach); their SSH sessions reconnect lazily on the next exec.
///
/// States follow libvirt: domain LIFECYCLE and AGENT_LIFECYCLE events of our domains make the
/// manager re-read that domain's state (readWorkspaceState), DEFINED/UNDEFINED events re-list.
/// The manager turns on the connection's auto-reconnect: while libvirt is away every state is
/// Unknown and connectedChanged(false) is emitted; once it is back everything is re-read.
///
/// Lives on the GUI (or CLI) thread; its libvirt reads are short local calls. The Workspace
/// objects it hands out are for worker threads (their calls block).
class WorkspaceManager : public QObject
{
    Q_OBJECT

public:
    struct Entry
    {
        WorkspaceRecord record;
        WorkspaceState state = WorkspaceState::Unknown;
    };

    explicit WorkspaceManager(HypervisorConnection* connection, QObject* parent = nullptr);
    ~WorkspaceManager() override;

    /// Opens the connection if needed, lists the workspaces and reads their states. Emits
    /// workspacesChanged() when the set of names changed and stateChanged() per changed state.
    /// Errors: libvirt unreachable, the domain list unreadable.
    Expected<void> refresh();

    /// The workspaces of the last refresh, ordered by name.
    QList<Entry> workspaces() const;
    /// State of workspace `name`; Unknown if there is none.
    WorkspaceState state(const QString& name) const;
    /// The Workspace object of `name` (shared with worker threads; stays valid after the
    /// workspace leaves the list), or nullptr.
    std::shared_ptr<Workspace> workspace(const QString& name) const;
    /// Whether the libvirt connection is up.
    bool isConnected() const { return m_connected; }

Q_SIGNALS:
    void workspacesChanged();
    void stateChanged(const QString& name, sbw::WorkspaceState state);
    /// A libvirt lifecycle or guest-agent event of workspace `name` was handled (after its
    /// stateChanged(), if any). The state may be unchanged: a revert keeps a guest running
    /// but turns its clock back.
    void domainEvent(const QString& name);
    /// The libvirt connection was lost (`reason`) or is back (empty reason).
    void connectedChanged(bool connected, const QString& reason);

private:
    void onLifecycle(const QString& uuid, int event);
    void refreshState(const QString& uuid);
    void setState(const QString& name, WorkspaceState state);

    HypervisorConnection* m_connection;
    bool m_connected = false;
    std::map<QString, Entry> m_entries; ///< by name
    std::map<QString, std::shared_ptr<Workspace>> m_workspaces;
};

} // namespace sbw
