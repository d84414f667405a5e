#pragma once

#include "mcp/McpTool.h"

#include <QList>
#include <map>
#include <memory>
#include <mutex>

namespace sbw {

class BrowserSession;
class HypervisorConnection;
class SandboxPool;
class Workspace;

/// What the workbench's MCP tools work on: one libvirt connection and the Workspace objects
/// opened through it (kept, so that a workspace's SSH session serves many calls). Thread-safe:
/// tools run on the server's worker threads.
class McpSandboxes
{
public:
    /// `pool`: where run_code takes a pre-booted sandbox from (null: every run boots its own).
    explicit McpSandboxes(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool = nullptr)
        : m_connection(connection), m_pool(std::move(pool))
    {
    }

    HypervisorConnection& connection() { return *m_connection; }
    SandboxPool* pool() const { return m_pool.get(); }
    /// Workspace `name`, opened on first use. Errors: "there is no workspace NAME", libvirt.
    Expected<std::shared_ptr<Workspace>> workspace(const QString& name);
    /// The browser session of workspace `name` for the browser tools, made on first use on the
    /// application's main thread (it needs that thread's event loop) and kept. Errors: as
    /// workspace().
    Expected<std::shared_ptr<BrowserSession>> browser(const QString& name);
    /// Keeps `workspace` (just created) for later calls.
    void adopt(std::shared_ptr<Workspace> workspace);
    /// How long a call waits for a starting guest, from now (120 s under TCG, 30 s with KVM).
    std::chrono::steady_clock::time_point readyDeadline() const;
    /// The policy file the server's gate judges by, where fork_workspace copies the source's
    /// rules for the fork; Policy::defaultPath() unless set (`sbw mcp --policy FILE`).
    QString policyFile() const;
    void setPolicyFile(const QString& path);

private:
    HypervisorConnection* m_connection;
    std::shared_ptr<SandboxPool> m_pool;
    mutable std::mutex m_mutex;
    std::map<QString, std::shared_ptr<Workspace>> m_workspaces;
    std::map<QString, std::shared_ptr<BrowserSession>> m_browsers;
    QString m_policyFile; ///< empty: Policy::defaultPath()
};

/// The workbench's tools, in the order tools/list shows them: run_code, list_workspaces,
/// create_workspace, exec, read_file, write_file, list_files, the browser tools, pause, resume,
/// checkpoint, fork_workspace (the
/// servers add network_activity after them, McpNetworkTool.h).
/// Inputs and outputs are described by their JSON Schemas (McpTool::inputSchema,
/// outputSchema); text and file contents are UTF-8 unless a tool says base64.
QList<McpTool> workbenchTools(std::shared_ptr<McpSandboxes> sandboxes);

/// browser_navigate, browser_back, browser_text, browser_screenshot, browser_click,
/// browser_type and browser_key (a workspace's browser; McpBrowserTools.cpp), part of
/// workbenchTools().
QList<McpTool> mcpBrowserTools(std::shared_ptr<McpSandboxes> sandboxes);

/// For an exec or file write a person approved (McpCall::approval) in a workspace set to
/// checkpoint before approved actions (WorkspaceRecord::checkpointBeforeApproved): takes
/// checkpoint "before-<row id>" with the action in its note, before the action runs, and
/// returns its name; empty when none is asked for. Errors: the checkpoint failed (the action
/// must not run then: the person asked for a point to go back to).
Expected<QString> checkpointBeforeApproved(Workspace& workspace, const McpCall& call);

/// fork_workspace (Workspace::fork, the policy rules copied; McpForkTool.cpp), part of
/// workbenchTools().
McpTool forkWorkspaceTool(std::shared_ptr<McpSandboxes> sandboxes);

/// read_file, write_file and list_files (SFTP on the workspace's session), part of
/// workbenchTools().
QList<McpTool> mcpFileTools(std::shared_ptr<McpSandboxes> sandboxes);

} // namespace sbw
