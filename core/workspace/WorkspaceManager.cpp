#include "workspace/WorkspaceManager.h"

#include "base/Logging.h"
#include "hypervisor/HypervisorConnection.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceDomains.h"

#include <libvirt/libvirt.h>

namespace sbw {

WorkspaceManager::WorkspaceManager(HypervisorConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection)
{
    m_connection->setAutoReconnect(true);
    connect(m_connection, &HypervisorConnection::domainLifecycle, this,
            [this](const QString& uuid, int event, int) { onLifecycle(uuid, event); });
    connect(m_connection, &HypervisorConnection::agentLifecycle, this,
            [this](const QString& uuid, bool) { refreshState(uuid); });
    connect(m_connection, &HypervisorConnection::disconnected, this, [this](const QString& reason) {
        m_connected = false;
        for (auto& [name, entry] : m_entries)
            setState(name, WorkspaceState::Unknown);
        Q_EMIT connectedChanged(false, reason);
    });
    connect(m_connection, &HypervisorConnection::reconnected, this, [this] {
        if (auto refreshed = refresh(); !refreshed)
            qCWarning(lcVirt) << "refresh after reconnect failed:" << refreshed.error().message;
    });
}

WorkspaceManager::~WorkspaceManager() = default;

Expected<void> WorkspaceManager::refresh()
{
    if (auto opened = m_connection->ensureOpen(); !opened)
        return opened;
    virConnectPtr conn = m_connection->handle();
    auto records = listWorkspaceRecords(conn);
    if (!records)
        return records.error();
    if (!m_connected) {
        m_connected = true;
        Q_EMIT connectedChanged(true, QString());
    }

    std::map<QString, Entry> previous;
    previous.swap(m_entries);
    bool membershipChanged = previous.size() != size_t(records->size());
    for (const WorkspaceRecord& record : records.value()) {
        Entry entry{record, WorkspaceState::Unknown};
        if (auto domain = lookupWorkspaceDomain(conn, record.name))
            entry.state = readWorkspaceState(domain->get());
        const auto old = previous.find(record.name);
        if (old == previous.end() || old->second.record.uuid != record.uuid) {
            membershipChanged = true;
            m_workspaces[record.name] = std::make_shared<Workspace>(*m_connection, record);
        }
        m_entries[record.name] = entry;
    }
    for (auto it = m_workspaces.begin(); it != m_workspaces.end();)
        it = m_entries.count(it->first) ? std::next(it) : m_workspaces.erase(it);
    if (membershipChanged)
        Q_EMIT workspacesChanged();
    for (const auto& [name, entry] : m_entries) {
        const auto old = previous.find(name);
        if (old == previous.end() || old->second.state != entry.state)
            Q_EMIT stateChanged(name, entry.state);
    }
    return {};
}

QList<WorkspaceManager::Entry> WorkspaceManager::workspaces() const
{
    QList<Entry> list;
    for (const auto& [name, entry] : m_entries)
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

void WorkspaceManager::onLifecycle(const QString& uuid, int event)
{
    if (event == VIR_DOMAIN_EVENT_DEFINED || event == VIR_DOMAIN_EVENT_UNDEFINED) {
        if (auto refreshed = refresh(); !refreshed)
            qCWarning(lcVirt) << "workspace refresh failed:" << refreshed.error().message;
        return;
    }
    refreshState(uuid);
}

void WorkspaceManager::refreshState(const QString& uuid)
{
    for (auto& [name, entry] : m_entries) {
        if (entry.record.uuid != uuid)
            continue;
        auto domain = lookupWorkspaceDomain(m_connection->handle(), name);
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
