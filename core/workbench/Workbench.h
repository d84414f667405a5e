#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QObject>

#include <memory>

namespace sbw {

class ApprovalQueue;
class CommandLog;
class EgressProxy;
class HypervisorConnection;
class McpHttpTransport;
class McpServer;
class PolicyGate;
class SandboxPool;
class StatsSampler;
class WorkspaceManager;

/// The services of one workbench window, built in one place (its composition root, as
/// virt-manager's engine owns what its manager window shows): the pool of pre-booted microVMs,
/// the workspaces, the stats sampler, the command log, the approval gate with its queue and its
/// pause-while-waiting, and the MCP server with its tools and its HTTP transport. The window
/// only shows them and asks them; a test builds them without widgets. Created and used on the
/// GUI thread; it must outlive the window that shows it.
class Workbench : public QObject
{
    Q_OBJECT

public:
    /// Builds every service on `connection` (not owned; must outlive this object). The command
    /// log, the approval policy and the MCP token come from their default paths; what cannot be
    /// read is reported by logOpened(), policyLoaded() and tokenLoaded() and the service works
    /// without it (no log; a policy that asks for everything; an HTTP endpoint nobody can use).
    explicit Workbench(HypervisorConnection* connection, QObject* parent = nullptr);
    ~Workbench() override;

    HypervisorConnection* connection() const { return m_connection; }
    const std::shared_ptr<SandboxPool>& sandboxPool() const { return m_sandboxPool; }
    WorkspaceManager* workspaces() const { return m_workspaces; }
    StatsSampler* sampler() const { return m_sampler; }
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

private:
    void openCommandLog();
    void createGate();
    void createEgressProxy();
    void createMcpServer();

    HypervisorConnection* m_connection;
    std::shared_ptr<SandboxPool> m_sandboxPool;
    WorkspaceManager* m_workspaces;
    StatsSampler* m_sampler;
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
