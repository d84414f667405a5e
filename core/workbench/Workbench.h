#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QList>
#include <QObject>

#include <memory>

namespace sbw {

class ApprovalQueue;
class CommandLog;
class EgressProxy;
class Host;
class HypervisorConnection;
class McpSandboxes;
class McpHttpTransport;
class McpServer;
class PolicyGate;
class SandboxPool;
class StatsSampler;
class WorkspaceManager;

/// The services of one workbench window, built in one place (its composition root, as
/// virt-manager's engine owns what its manager window shows): the libvirt hosts, each with its
/// pool of pre-booted microVMs and its stats sampler (Host), and what spans them: the
/// workspaces of every host, the command log, the approval gate with its queue and its pause-while-waiting, the
/// egress proxy, and the MCP server with its tools and its HTTP transport. The window only
/// shows them and asks them; a test builds them without widgets. Created and used on the GUI
/// thread; it must outlive the window that shows it.
class Workbench : public QObject
{
    Q_OBJECT

public:
    /// Builds every service on `connection` (not owned; must outlive this object). The command
    /// log, the approval policy and the MCP token come from their default paths; what cannot be
    /// read is reported by logOpened(), policyLoaded() and tokenLoaded() and the service works
    /// without it (no log; a policy that asks for everything; an HTTP endpoint nobody can use).
    /// `connection` is the first host's (hosts().first()).
    explicit Workbench(HypervisorConnection* connection, QObject* parent = nullptr);
    ~Workbench() override;

    /// The hosts, the first (the default of runs and agents' calls) first.
    const QList<Host*>& hosts() const { return m_hosts; }
    /// The host on connection URI `uri`, or null.
    Host* host(const QString& uri) const;
    /// Adds a host on a connection of its own to `uri` and opens it off the GUI thread
    /// (Host::open()); agents' calls can name it from then on. Errors: an empty URI, a host
    /// that is there already.
    Expected<Host*> addHost(const QString& uri);

    /// The first host's connection and services.
    HypervisorConnection* connection() const { return m_connection; }
    const std::shared_ptr<SandboxPool>& sandboxPool() const;
    /// The workspaces of every host.
    WorkspaceManager* workspaces() const { return m_workspaces; }
    StatsSampler* sampler() const;
    /// Null when the log cannot be opened (logOpened() says why).
    const std::shared_ptr<CommandLog>& commandLog() const { return m_commandLog; }
    ApprovalQueue* approvals() const { return m_approvals; }
    PolicyGate* gate() const { return m_gate; }
    /// The allowlist network's proxy; this process's workspaces send their guests' connections
    /// to it (GuestEgress).
    EgressProxy* egressProxy() const { return m_egressProxy; }
    McpServer* mcpServer() const { return m_mcpServer; }
    McpHttpTransport* mcpHttp() const { return m_mcpHttp; }
    /// The HTTP endpoint's bearer token; empty when tokenLoaded() failed.
    const QByteArray& mcpToken() const { return m_mcpToken; }

    const Expected<void>& logOpened() const { return m_logOpened; }
    const Expected<void>& policyLoaded() const { return m_policyLoaded; }
    const Expected<void>& tokenLoaded() const { return m_tokenLoaded; }

Q_SIGNALS:
    void hostAdded(sbw::Host* host);

private:
    void openCommandLog();
    void createGate();
    void createEgressProxy();
    void createMcpServer();

    HypervisorConnection* m_connection;
    QList<Host*> m_hosts;
    WorkspaceManager* m_workspaces;
    std::shared_ptr<McpSandboxes> m_mcpSandboxes; ///< what the MCP tools work on: every host
    std::shared_ptr<CommandLog> m_commandLog;
    ApprovalQueue* m_approvals = nullptr;
    PolicyGate* m_gate = nullptr;
    EgressProxy* m_egressProxy = nullptr;
    McpServer* m_mcpServer = nullptr;
    McpHttpTransport* m_mcpHttp = nullptr;
    QByteArray m_mcpToken;
    Expected<void> m_logOpened;
    Expected<void> m_policyLoaded;
    Expected<void> m_tokenLoaded;
};

} // namespace sbw
