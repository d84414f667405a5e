#include "workbench/Workbench.h"

#include "approval/ApprovalPause.h"
#include "approval/ApprovalQueue.h"
#include "approval/Policy.h"
#include "approval/PolicyGate.h"
#include "egress/EgressProxy.h"
#include "log/CommandLog.h"
#include "mcp/McpHttpAccess.h"
#include "mcp/McpHttpTransport.h"
#include "mcp/McpNetworkTool.h"
#include "mcp/McpServer.h"
#include "mcp/McpTools.h"
#include "workbench/Host.h"
#include "workspace/WorkspaceManager.h"

namespace sbw {

Workbench::Workbench(HypervisorConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection), m_hosts{new Host(connection, this)},
      m_workspaces(new WorkspaceManager(connection, this))
{
    m_mcpSandboxes = std::make_shared<McpSandboxes>(m_connection, sandboxPool());
    openCommandLog();
    createGate();
    createEgressProxy();
    createMcpServer();
}

Workbench::~Workbench()
{
    // What uses the gate goes before it (children go in the order they were made, the gate
    // first): agents' calls end, then guests' connections.
    delete m_mcpHttp;
    delete m_mcpServer;
    delete m_egressProxy;
    m_mcpSandboxes.reset(); // the hosts (children) go after it
}

Host* Workbench::host(const QString& uri) const
{
    for (Host* host : m_hosts)
        if (host->uri() == uri)
            return host;
    return nullptr;
}

Expected<Host*> Workbench::addHost(const QString& uri)
{
    const QString trimmed = uri.trimmed();
    if (trimmed.isEmpty())
        return makeError(QStringLiteral("no connection URI given"));
    if (host(trimmed))
        return makeError(QStringLiteral("the workbench is connected to %1 already").arg(trimmed));
    auto* added = new Host(trimmed, this);
    m_hosts << added;
    m_workspaces->addConnection(added->connection());
    m_mcpSandboxes->addHost(added->connection(), added->sandboxPool());
    added->open();
    Q_EMIT hostAdded(added);
    return added;
}

const std::shared_ptr<SandboxPool>& Workbench::sandboxPool() const { return m_hosts.first()->sandboxPool(); }

StatsSampler* Workbench::sampler() const { return m_hosts.first()->sampler(); }

void Workbench::openCommandLog()
{
    auto log = CommandLog::openDefault();
    if (!log) {
        m_logOpened = log.error();
        return;
    }
    m_commandLog = log.value();
}

void Workbench::createGate()
{
    Policy policy;
    if (auto loaded = Policy::load(Policy::defaultPath()))
        policy = loaded.value();
    else
        m_policyLoaded = loaded.error();
    m_approvals = new ApprovalQueue(this);
    m_gate = new PolicyGate(policy, m_commandLog, this);
    m_gate->setPolicyFile(Policy::defaultPath()); // "allow always" writes its rule there
    m_gate->setApprovalQueue(m_approvals);
    // The policy's pauseWhileWaiting: a workspace is paused while an action for it waits, on
    // whichever host has it (actions name workspaces as agents do, without their host).
    m_gate->setApprovalPause(new ApprovalPause(
        [sandboxes = m_mcpSandboxes](const QString& name) { return sandboxes->workspace(name); }, m_commandLog, this));
}

void Workbench::createEgressProxy()
{
    m_egressProxy = new EgressProxy(m_gate, m_commandLog, this);
    m_egressProxy->acceptGuestConnections();
}

void Workbench::createMcpServer()
{
    // Agents' calls pass the gate: its policy, and the approval queue for `ask`.
    m_mcpServer = new McpServer(m_gate, m_commandLog, this);
    for (McpTool& tool : workbenchTools(m_mcpSandboxes))
        m_mcpServer->addTool(std::move(tool));
    m_mcpServer->addTool(networkActivityTool(m_gate, m_commandLog));
    if (auto token = loadOrCreateMcpToken(defaultMcpTokenPath()))
        m_mcpToken = token.value();
    else
        m_tokenLoaded = token.error();
    m_mcpHttp = new McpHttpTransport(m_mcpServer, m_mcpToken, this);
}

} // namespace sbw
