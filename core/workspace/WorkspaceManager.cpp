#include "workspace/WorkspaceManager.h"

#include "base/Logging.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceDomains.h"

#include <libvirt/libvirt.h>

#include <set>

namespace sbw {

WorkspaceManager::WorkspaceManager(HypervisorConnection* connection, QObject* parent)
    : QObject(parent), m_connections{connection}
{
    watch(connection);
}

WorkspaceManager::~WorkspaceManager() = default;

void WorkspaceManager::addConnection(HypervisorConnection* connection)
{
    m_connections.push_back(connection);
    watch(connection);
    if (connection->handle())
        if (auto listed = refreshHost(connection); !listed)
            qCWarning(lcVirt) << "cannot list the workspaces of" << connection->uri() << listed.error().message;
}

void WorkspaceManager::watch(HypervisorConnection* connection)
{
    connection->setAutoReconnect(true);
    const bool first = connection == m_connections.front();
    connect(connection, &HypervisorConnection::domainLifecycle, this,
            [this, connection](const QString& uuid, int event, int) { onLifecycle(connection, uuid, event); });
    connect(connection, &HypervisorConnection::agentLifecycle, this,
            [this, connection](const QString& uuid, bool) { refreshState(connection, uuid); });
    connect(connection, &HypervisorConnection::disconnected, this, [this, connection, first](const QString& reason) {
        markUnknown(connection);
        if (first) {
            m_connected = false;
            Q_EMIT connectedChanged(false, reason);
        }
    });
    // The first open of another host, and every reconnect.
    connect(connection, &HypervisorConnection::stateChanged, this, [this, connection, first](ConnectionState state) {
        // The first host's first open is the window's own refresh() (the reattach).
        if (state != ConnectionState::Active || (first && m_connected))
            return;
        const Expected<void> listed = first ? refresh() : refreshHost(connection);
        if (!listed)
            qCWarning(lcVirt) << "cannot list the workspaces of" << connection->uri() << listed.error().message;
    });
}

Expected<void> WorkspaceManager::refresh()
{
    if (auto opened = m_connections.front()->ensureOpen(); !opened)
        return opened;
    for (HypervisorConnection* connection : m_connections) {
        if (!connection->handle())
            continue;
        if (auto listed = refreshHost(connection); !listed)
            return listed;
        if (connection == m_connections.front() && !m_connected) {
            m_connected = true;
            Q_EMIT connectedChanged(true, QString());
        }
    }
    return {};
}

QString WorkspaceManager::nameOn(const HypervisorConnection* connection, const QString& name) const
{
    if (connection == m_connections.front())
        return name;
    return name + QLatin1Char('@') + hostDisplayName(connection->uri());
}

Expected<void> WorkspaceManager::refreshHost(HypervisorConnection* connection)
{
    virConnectPtr conn = connection->handle();
    if (!conn)
        return makeError(QStringLiteral("not connected to %1").arg(connection->uri()));
    auto records = listWorkspaceRecords(conn);
    if (!records)
        return records.error();

    std::map<QString, Entry> previous;
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (it->second.host == connection) {
            previous.insert(*it);
            it = m_entries.erase(it);
        } else {
            ++it;
        }
    }
    bool membershipChanged = previous.size() != size_t(records->size());
    std::set<QString> listed;
    for (const WorkspaceRecord& record : records.value()) {
        Entry entry{record, WorkspaceState::Unknown, nameOn(connection, record.name), connection};
        if (auto domain = lookupWorkspaceDomain(conn, record.name))
            entry.state = readWorkspaceState(domain->get());
        const auto old = previous.find(entry.name);
        if (old == previous.end() || old->second.record.uuid != record.uuid) {
            membershipChanged = true;
            m_workspaces[entry.name] = std::make_shared<Workspace>(*connection, record);
        }
        listed.insert(entry.name);
        m_entries[entry.name] = entry;
    }
    for (const auto& [name, entry] : previous)
        if (!listed.count(name))
            m_workspaces.erase(name);
    if (membershipChanged)
        Q_EMIT workspacesChanged();
    for (const QString& name : listed) {
        const auto old = previous.find(name);
        if (old == previous.end() || old->second.state != m_entries[name].state)
            Q_EMIT stateChanged(name, m_entries[name].state);
    }
    return {};
}

QList<WorkspaceManager::Entry> WorkspaceManager::workspaces() const
{
    QList<Entry> list; // grouped by host, the first host's first; by name within a host
    for (const HypervisorConnection* connection : m_connections)
        for (const auto& [name, entry] : m_entries)
            if (entry.host == connection)
                list << entry;
    return list;
}

WorkspaceState WorkspaceManager::state(const QString& name) const
{
    const auto it = m_entries.find(name);
    return it == m_entries.end() ? WorkspaceState::Unknown : it->second.state;
}

std::shared_ptr<Workspace> WorkspaceManager::workspace(const QString& name) const
{
    const auto it = m_workspaces.find(name);
    return it == m_workspaces.end() ? nullptr : it->second;
}

void WorkspaceManager::onLifecycle(HypervisorConnection* connection, const QString& uuid, int event)
{
    if (event == VIR_DOMAIN_EVENT_DEFINED || event == VIR_DOMAIN_EVENT_UNDEFINED) {
        if (auto refreshed = refreshHost(connection); !refreshed)
            qCWarning(lcVirt) << "workspace refresh failed:" << refreshed.error().message;
        return;
    }
    refreshState(connection, uuid);
}

void WorkspaceManager::markUnknown(HypervisorConnection* connection)
{
    for (auto& [name, entry] : m_entries)
        if (entry.host == connection)
            setState(name, WorkspaceState::Unknown);
}

void WorkspaceManager::refreshState(HypervisorConnection* connection, const QString& uuid)
{
    for (auto& [name, entry] : m_entries) {
        if (entry.host != connection || entry.record.uuid != uuid)
            continue;
        auto domain = lookupWorkspaceDomain(connection->handle(), entry.record.name);
        setState(name, domain ? readWorkspaceState(domain->get()) : WorkspaceState::Unknown);
        Q_EMIT domainEvent(name);
        return;
    }
}

void WorkspaceManager::setState(const QString& name, WorkspaceState state)
{
    Entry& entry = m_entries[name];
    if (entry.state == state)
        return;
    entry.state = state;
    Q_EMIT stateChanged(name, state);
}

} // namespace sbw
