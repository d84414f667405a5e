#pragma once

#include "approval/Policy.h"
#include "base/Expected.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QMenu;
class QDockWidget;
class QProgressBar;
class QStackedWidget;
class QTabWidget;

namespace sbw {

class AgentsPane;
class ApprovalQueue;
class ApprovalQueuePane;
class CommandLog;
class ConnectionStatusLabel;
struct ExampleScript;
class GraphPane;
class HostList;
class HypervisorConnection;
class McpHttpTransport;
class McpServer;
struct OperationReport;
class PolicyGate;
class ReadyMicroVmsMenu;
class RunHostMenu;
class RunPane;
struct RunResult;
class SandboxPageStack;
class SandboxPool;
class SessionListModel;
class SessionListPane;
class StatsSampler;
class Workbench;
class WorkspaceActions;
class WorkspaceManager;
class WorkspacePane;

/// The workbench window: the session list on the left (the ephemeral run and every
/// workspace), the selected session's panes in the middle (the run pane; or for a workspace
/// its commands and checkpoints, terminals, file tree and serial console), the resource graphs
/// in a dock at the bottom, menus (File, Run, Workspace, Help), a toolbar with the workspace
/// lifecycle actions and the connection with its accelerator in the status bar.
///
/// The window keeps its size, its docks and toolbar (which are open, where, how big), the sizes
/// of its named splitters and the run pane's settings (RunPane::saveSettings()) in QSettings
/// when it closes, and shows them again when the next one opens.
///
/// Closing the window during a run cancels the run, shows "Cleaning up…" and closes once the
/// run's VM is destroyed, without blocking the GUI thread meanwhile. Workspaces are left as
/// they are: opening the window again finds them (reattach). The services it shows come from
/// `workbench`, which must outlive the window.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(Workbench* workbench, QWidget* parent = nullptr);
    ~MainWindow() override;

    RunPane* runPane() const { return m_runPane; }
    WorkspacePane* workspacePane() const { return m_workspacePane; }
    SessionListPane* sessionList() const { return m_sessionList; }
    WorkspaceManager* workspaceManager() const { return m_workspaces; }
    WorkspaceActions* workspaceActions() const { return m_workspaceActions; }
    QTabWidget* workspaceTabs() const { return m_workspaceTabs; }
    SandboxPageStack* terminals() const { return m_terminals; }
    SandboxPageStack* files() const { return m_files; }
    SandboxPageStack* browsers() const { return m_browsers; }
    SandboxPageStack* consoles() const { return m_consoles; }
    /// The workspaces' Network tabs (NetworkPane); null without a command log.
    SandboxPageStack* networks() const { return m_networks; }
    GraphPane* graphPane() const { return m_graphPane; }
    /// Samples the host and every sandbox for the Resources pane, every second.
    StatsSampler* sampler() const { return m_sampler; }
    /// The command log (dataDir()/command-log.sqlite); null when it cannot be opened.
    std::shared_ptr<CommandLog> commandLog() const { return m_commandLog; }
    /// The gate agents' actions pass: the policy of Policy::defaultPath() (agents are asked for
    /// everything when it cannot be read), asks wait in the approval queue pane.
    PolicyGate* actionGate() const { return m_gate; }
    ApprovalQueue* approvalQueue() const { return m_approvals; }
    ApprovalQueuePane* approvalPane() const { return m_approvalPane; }
    McpServer* mcpServer() const { return m_mcpServer; }
    AgentsPane* agentsPane() const { return m_agentsPane; }
    ConnectionStatusLabel* connectionStatus() const { return m_connectionStatus; }
    /// True while a close waits for the run's clean-up.
    bool isClosePending() const { return m_closePending; }
    /// The hosts' lines above the session list.
    HostList* hostList() const { return m_hostList; }
    /// Run ▸ Run On: the host of the run pane's next runs.
    RunHostMenu* runHostMenu() const { return m_runHostMenu; }

    /// Adds a host on libvirt connection `uri` (Workbench::addHost()), its workspaces to the
    /// session list and its line to the host list; `remember` keeps it in the settings
    /// (connections/uris) for the next window. Errors: Workbench::addHost()'s.
    Expected<void> addConnection(const QString& uri, bool remember);
    /// Adds the hosts the settings remember (addConnection() of each, those not there yet).
    void addRememberedConnections();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

public Q_SLOTS:
    /// Asks for a script file and loads it into the editor.
    void openScript();
    /// Loads an example of File ▸ Examples into the run pane: script, language, image
    /// template and input files.
    void loadExample(const sbw::ExampleScript& example);
    void saveStdout();
    void saveStderr();
    void showAbout();
    /// Opens the approval policy editor; a saved policy applies at once.
    void editPolicy();
    /// File ▸ Add Connection…: asks for a libvirt URI and adds its host.
    void askConnection();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    /// Shows the layout and run settings the last window kept; saveLayout() keeps them.
    void restoreLayout();
    void saveLayout() const;
    void createActions();
    void createMenus();
    void createToolBar();
    QDockWidget* createApprovalDock();
    /// The Agents dock over the workbench's MCP server (stopped until Agents ▸ MCP Server), its
    /// toggle added to `view`. Returns the Agents menu.
    QMenu* createAgentServer(QMenu* view);
    void updateActions();
    void onRunFinished(const RunResult& result);
    void showRun();
    void showWorkspace(const QString& name);
    void createWorkspaceTabs();
    /// Gives the Sessions dock back the width it had whenever a dock that took some of it
    /// closes (the Approvals or Agents dock beside a window too narrow for all three).
    void keepSessionDockWidth();
    void restoreSessionDockWidth();
    void showWorkspaceTab();
    void openWorkspaceTerminal(const QString& workspace);
    /// The workspace's disconnected terminal tabs reconnect, if it runs.
    void reconnectTerminals(const QString& workspace);
    void onOperationFinished(const sbw::OperationReport& report);
    /// A fork under way shows in the status bar until its operationFinished().
    void onForkStarted(const QString& source, const QString& fork);
    /// Ends the fork's busy state; a fork that was made brings its policy rules (copied in
    /// the policy file) into the gate.
    void onForkFinished(const sbw::OperationReport& report);
    /// "Allow always" / "deny always" from the Approvals dock or a Network tab: the rule goes to
    /// the sandbox's workspace policy (the default rules for an ephemeral run's sandbox).
    Expected<void> setDestinationRule(const QString& sandbox, const NetworkDestination& destination,
                                      PolicyDecision decision);
    void saveBytes(const QByteArray& bytes, const QString& title, const QString& suggestedName);

    Workbench* m_workbench;
    HypervisorConnection* m_connection;
    /// The pre-booted microVM of ephemeral runs (Run pane and the agents' run_code).
    std::shared_ptr<SandboxPool> m_sandboxPool;
    WorkspaceManager* m_workspaces;
    WorkspaceActions* m_workspaceActions;
    SessionListModel* m_sessionModel;
    RunPane* m_runPane;
    WorkspacePane* m_workspacePane;
    SessionListPane* m_sessionList;
    QStackedWidget* m_center;
    QTabWidget* m_workspaceTabs = nullptr;
    SandboxPageStack* m_terminals = nullptr;
    SandboxPageStack* m_files = nullptr;
    SandboxPageStack* m_browsers = nullptr;
    SandboxPageStack* m_consoles = nullptr;
    SandboxPageStack* m_networks = nullptr;
    StatsSampler* m_sampler;
    GraphPane* m_graphPane;
    std::shared_ptr<CommandLog> m_commandLog;
    ApprovalQueue* m_approvals = nullptr;
    PolicyGate* m_gate = nullptr;
    ApprovalQueuePane* m_approvalPane = nullptr;
    McpServer* m_mcpServer = nullptr;
    McpHttpTransport* m_mcpHttp = nullptr;
    AgentsPane* m_agentsPane = nullptr;
    QString m_currentWorkspace;
    ConnectionStatusLabel* m_connectionStatus;
    HostList* m_hostList = nullptr;
    QProgressBar* m_forkBusy = nullptr; ///< in the status bar while forks are under way
    int m_forksUnderWay = 0;
    QAction* m_openAction = nullptr;
    QAction* m_saveStdoutAction = nullptr;
    QAction* m_saveStderrAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_aboutAction = nullptr;
    ReadyMicroVmsMenu* m_readyMicroVmsMenu = nullptr; ///< Run ▸ Ready MicroVMs
    RunHostMenu* m_runHostMenu = nullptr;             ///< Run ▸ Run On
    QAction* m_refreshAction = nullptr;
    bool m_closePending = false;
    QDockWidget* m_sessionDock = nullptr;
    int m_sessionDockWidth = 0; ///< as the person left it, with no other dock beside it
};

} // namespace sbw
