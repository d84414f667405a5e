#pragma once

#include "mcp/McpTool.h"

#include <QList>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace sbw {

class BrowserSession;
class HypervisorConnection;
class SandboxPool;
class Workspace;

/// What the workbench's MCP tools work on: the workbench's libvirt hosts (the first is the
/// default) and the Workspace objects opened through them (kept, so that a workspace's SSH
/// session serves many calls). A workspace is named without its host: the first host that has
/// it serves it, and create_workspace refuses a name another host has. Thread-safe: tools run
/// on the server's worker threads.
class McpSandboxes
{
public:
    /// One host: its connection and where run_code takes a pre-booted sandbox from (null:
    /// every run boots its own).
    struct Host
    {
        HypervisorConnection* connection = nullptr;
        std::shared_ptr<SandboxPool> pool;
    };

    /// The first host; `connection` must outlive this object.
    explicit McpSandboxes(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool = nullptr)
        : m_hosts{{connection, std::move(pool)}}
    {
    }

    /// Adds a host after the others (the window's File ▸ Add Connection…).
    void addHost(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool);
    std::vector<Host> hosts() const;
    /// The host whose connection URI is `uri`, the first host when `uri` is empty. Errors:
    /// "no host qemu+ssh://x/system; the hosts are: qemu:///system, …".
    Expected<Host> host(const QString& uri) const;
    /// Workspace `name`, opened on first use on the first host that has it. Errors: "no
    /// workspace named 'NAME'" (with each host's answer when there are several), libvirt.
    Expected<std::shared_ptr<Workspace>> workspace(const QString& name);
    /// The browser session of workspace `name` for the browser tools, made on first use on the
    /// application's main thread (it needs that thread's event loop) and kept. Errors: as
    /// workspace().
    Expected<std::shared_ptr<BrowserSession>> browser(const QString& name);
    /// Keeps `workspace` (just created) for later calls.
    void adopt(std::shared_ptr<Workspace> workspace);
    /// How long a call waits for a starting guest on `connection`, from now (120 s under TCG,
    /// 30 s with KVM).
    static std::chrono::steady_clock::time_point readyDeadline(const HypervisorConnection& connection);
    /// The policy file the server's gate judges by, where fork_workspace copies the source's
    /// rules for the fork; Policy::defaultPath() unless set (`sbw mcp --policy FILE`).
    QString policyFile() const;
    void setPolicyFile(const QString& path);

private:
    mutable std::mutex m_mutex;
    std::vector<Host> m_hosts;
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
