#pragma once

#include <QObject>
#include <QString>

#include <memory>

namespace sbw {

class HypervisorConnection;
class SandboxPool;
class StatsSampler;

/// One libvirt host of the workbench (a connection, as virt-manager lists them: qemu:///system
/// or qemu+ssh://user@server/system) and the services that work on it alone: its pool of
/// pre-booted microVMs and its stats sampler. What spans the hosts (the workspaces of all of them
/// in one WorkspaceManager, the command log, the approval gate, the egress proxy, the MCP
/// server) is the Workbench's.
///
/// Losing the host (HypervisorConnection::state() Lost, then Reconnecting with backoff) touches
/// nothing of another host: each has its own connection, callbacks and threads' work. GUI
/// thread.
class Host : public QObject
{
    Q_OBJECT

public:
    /// A host on a connection of its own to `uri`; open() opens it.
    explicit Host(const QString& uri, QObject* parent = nullptr);
    /// A host on `connection`, which is not owned and must outlive this object.
    explicit Host(HypervisorConnection* connection, QObject* parent = nullptr);
    ~Host() override;

    QString uri() const;
    HypervisorConnection* connection() const { return m_connection; }
    const std::shared_ptr<SandboxPool>& sandboxPool() const { return m_sandboxPool; }
    StatsSampler* sampler() const { return m_sampler; }

    /// Opens the connection off this thread (HypervisorConnection::openInBackground()); a host
    /// that cannot be reached is tried again with backoff.
    void open();

    /// "server · active · KVM", "qemu:///system · reconnecting in 4 s": the host's name (the
    /// URI's host, or the URI of a local one), its state and, while active, its accelerator.
    QString summary() const;

Q_SIGNALS:
    /// summary() may read differently: the connection's state changed.
    void changed();

private:
    void build();

    std::unique_ptr<HypervisorConnection> m_ownConnection;
    HypervisorConnection* m_connection;
    std::shared_ptr<SandboxPool> m_sandboxPool;
    StatsSampler* m_sampler = nullptr;
};

} // namespace sbw
