#pragma once

#include "base/Expected.h"
#include "workspace/WorkspaceRecord.h"
#include "workspace/WorkspaceState.h"

#include <QList>
#include <QObject>
#include <map>
#include <memory>
#include <vector>

namespace sbw {

class HypervisorConnection;
class Workspace;

/// Every workspace on the workbench's libvirt connections (hosts), found by the metadata of its
/// domain (other domains are never touched), with its true state. Closing and reopening the
/// workbench finds them again the same way (reattach); their SSH sessions reconnect lazily on
/// the next exec.
///
/// A workspace is known by a name unique among all hosts (Entry::name): its own name on the
/// first host, "NAME@HOST" on the others (workspace names have no '@'), so that the same name
/// on two hosts (or one daemon reached through two connections) is two entries.
///
/// States follow libvirt: domain LIFECYCLE and AGENT_LIFECYCLE events of our domains make the
/// manager re-read that domain's state (readWorkspaceState), DEFINED/UNDEFINED events re-list.
/// The manager turns on each connection's auto-reconnect: while a host is away its workspaces'
/// states are Unknown (the other hosts' are untouched); once it is back they are re-read.
/// connectedChanged() is the first host's.
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
        /// The name the workbench knows it by: record.name, or "NAME@HOST" off the first host.
        QString name;
        HypervisorConnection* host = nullptr;
    };

    /// `connection` is the first host's; it must outlive this object.
    explicit WorkspaceManager(HypervisorConnection* connection, QObject* parent = nullptr);
    ~WorkspaceManager() override;

    /// Adds the workspaces of another host (its connection must outlive this object): read
    /// once it is open (refresh()), again after each reconnect.
    void addConnection(HypervisorConnection* connection);

    /// Opens the first host's connection if needed, lists the workspaces of every open host and
    /// reads their states (a host that is not open is left as it is: opening a remote one can
    /// take as long as SSH's timeout). Emits workspacesChanged() when the set of names changed
    /// and stateChanged() per changed state. Errors: the first host unreachable, a domain list
    /// unreadable.
    Expected<void> refresh();

    /// The workspaces of the last refresh: the first host's, then each other host's in the
    /// order they were added, by name within a host.
    QList<Entry> workspaces() const;
    /// State of workspace `name`; Unknown if there is none.
    WorkspaceState state(const QString& name) const;
    /// The Workspace object of `name` (shared with worker threads; stays valid after the
    /// workspace leaves the list), or nullptr.
    std::shared_ptr<Workspace> workspace(const QString& name) const;
    /// Whether the first host's libvirt connection is up.
    bool isConnected() const { return m_connected; }
    /// "NAME" on the first host, "NAME@HOST" (Host::displayName() of its URI) on the others.
    QString nameOn(const HypervisorConnection* connection, const QString& name) const;

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
    void watch(HypervisorConnection* connection);
    /// Lists `connection`'s workspaces into the entries, replacing that host's.
    Expected<void> refreshHost(HypervisorConnection* connection);
    void onLifecycle(HypervisorConnection* connection, const QString& uuid, int event);
    void refreshState(HypervisorConnection* connection, const QString& uuid);
    void setState(const QString& name, WorkspaceState state);
    void markUnknown(HypervisorConnection* connection);

    std::vector<HypervisorConnection*> m_connections; ///< the first host's first
    bool m_connected = false;
    std::map<QString, Entry> m_entries; ///< by Entry::name
    std::map<QString, std::shared_ptr<Workspace>> m_workspaces; ///< by Entry::name
};

} // namespace sbw
