#include "window/MainWindow.h"

#include "agents/AgentsPane.h"
#include "approval/ApprovalQueue.h"
#include "approval/ApprovalQueuePane.h"
#include "preview/ActionPreview.h"
#include "approval/Policy.h"
#include "approval/PolicyEditorDialog.h"
#include "approval/PolicyGate.h"
#include "approval/TerminalApprover.h"
#include "base/Async.h"
#include "browser/WorkspaceBrowserPage.h"
#include "files/WorkspaceFilesPage.h"
#include "guest/GuestSession.h"
#include "guest/SftpClient.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "log/CommandLogPane.h"
#include "network/NetworkPane.h"
#include "run/ExampleScript.h"
#include "run/InputFilesList.h"
#include "run/RunPane.h"
#include "run/ReadyMicroVmsMenu.h"
#include "run/RunHostMenu.h"
#include "sandbox/SandboxPool.h"
#include "stats/GraphPane.h"
#include "stats/StatsSampler.h"
#include "terminal/SerialConsoleView.h"
#include "terminal/TerminalTabs.h"
#include "widgets/SandboxPageStack.h"
#include "window/ConnectionStatusLabel.h"
#include "window/HostList.h"
#include "window/SessionListModel.h"
#include "window/SessionListPane.h"
#include "workbench/Host.h"
#include "workbench/Workbench.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspacePane.h"

#include <algorithm>

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSaveFile>
#include <QSettings>
#include <QVBoxLayout>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolBar>

// Q_INIT_RESOURCE must be used outside any namespace. The resources live in the static sbw-ui
// library, whose initialiser the linker would otherwise drop.
static void initResources()
{
    Q_INIT_RESOURCE(sandbox_workbench);
}

namespace sbw {
namespace {

/// The Sessions dock's first width: a workspace name of 40 characters with its state.
constexpr int kSessionDockWidth = 360;
/// QSettings keys of the window's layout: saveGeometry(), saveState() and, in the group, each
/// named splitter's saveState() under its object name.
const QString kGeometrySetting = QStringLiteral("window/geometry");
const QString kStateSetting = QStringLiteral("window/state");
const QString kSplitterGroup = QStringLiteral("window/splitters");
/// Raised when the docks change so much that an old state would misplace them.
constexpr int kStateVersion = 1;

/// Makes `page` follow workspace `name`: `down` with the state while the guest is stopped,
/// hibernated or crashed (what a page showed of it may no longer be true), `up` when it runs.
void followGuest(WorkspaceManager* manager, const QString& name, QWidget* page,
                 std::function<void(WorkspaceState)> down, std::function<void()> up)
{
    const auto follow = [down, up](WorkspaceState state) {
        if (state == WorkspaceState::Stopped || state == WorkspaceState::Hibernated || state == WorkspaceState::Crashed)
            down(state);
        else if (state == WorkspaceState::Running)
            up();
    };
    follow(manager->state(name));
    QObject::connect(manager, &WorkspaceManager::stateChanged, page, [name, follow](const QString& changed, WorkspaceState state) {
        if (changed == name)
            follow(state);
    });
}

} // namespace

MainWindow::MainWindow(Workbench* workbench, QWidget* parent)
    : QMainWindow(parent), m_workbench(workbench), m_connection(workbench->connection()),
      m_sandboxPool(workbench->sandboxPool()), m_workspaces(workbench->workspaces()),
      m_workspaceActions(new WorkspaceActions(m_connection, m_workspaces, this)),
      m_sessionModel(new SessionListModel(m_workspaces, this)),
      m_runPane(new RunPane(m_connection, this)),
      m_workspacePane(new WorkspacePane(m_workspaces, m_workspaceActions, this)),
      m_sessionList(new SessionListPane(m_sessionModel, m_workspaceActions, this)),
      m_center(new QStackedWidget(this)), m_sampler(workbench->sampler()),
      m_graphPane(new GraphPane(m_sampler, this)), m_commandLog(workbench->commandLog()),
      m_approvals(workbench->approvals()), m_gate(workbench->gate()),
      m_mcpServer(workbench->mcpServer()), m_mcpHttp(workbench->mcpHttp()),
      m_connectionStatus(new ConnectionStatusLabel(m_connection, this))
{
    initResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Sandbox Workbench"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/sandbox-workbench.svg")));
    createWorkspaceTabs();
    m_center->addWidget(m_runPane);
    m_center->addWidget(m_workspaceTabs);
    setCentralWidget(m_center);

    auto* graphDock = new QDockWidget(tr("Resources"), this);
    graphDock->setObjectName(QStringLiteral("resourceDock"));
    graphDock->setWidget(m_graphPane);
    addDockWidget(Qt::BottomDockWidgetArea, graphDock);
    graphDock->hide(); // View ▸ Resources; it takes room the panes above need
    m_sampler->start();

    auto* logDock = new QDockWidget(tr("Command Log"), this);
    logDock->setObjectName(QStringLiteral("commandLogDock"));
    if (m_commandLog) {
        m_workspacePane->setCommandLog(m_commandLog);
        m_workspaceActions->setCommandLog(m_commandLog);
        m_runPane->setCommandLog(m_commandLog);
        logDock->setWidget(new CommandLogPane(m_commandLog, logDock));
    } else {
        auto* failed = new QLabel(
            tr("The command log cannot be opened: %1").arg(workbench->logOpened().error().message), logDock);
        failed->setWordWrap(true);
        failed->setTextFormat(Qt::PlainText);
        logDock->setWidget(failed);
    }
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    tabifyDockWidget(graphDock, logDock);
    logDock->hide(); // View ▸ Command Log
    QDockWidget* approvalDock = createApprovalDock();

    auto* sessionDock = new QDockWidget(tr("Sessions"), this);
    m_sessionDock = sessionDock;
    sessionDock->setObjectName(QStringLiteral("sessionDock"));
    sessionDock->setFeatures(QDockWidget::DockWidgetMovable);
    m_hostList = new HostList(workbench, sessionDock);
    auto* sessions = new QWidget(sessionDock);
    auto* sessionsLayout = new QVBoxLayout(sessions);
    sessionsLayout->setContentsMargins(0, 0, 0, 0);
    sessionsLayout->setSpacing(2);
    sessionsLayout->addWidget(m_hostList);
    sessionsLayout->addWidget(m_sessionList, 1);
    sessionDock->setWidget(sessions);
    addDockWidget(Qt::LeftDockWidgetArea, sessionDock);
    m_sessionDockWidth = kSessionDockWidth;
    resizeDocks({sessionDock}, {m_sessionDockWidth}, Qt::Horizontal);

    createActions();
    createMenus();
    createToolBar();
    statusBar()->addPermanentWidget(m_connectionStatus);
    m_forkBusy = new QProgressBar(this);
    m_forkBusy->setObjectName(QStringLiteral("forkBusyBar"));
    m_forkBusy->setRange(0, 0); // busy: how long a fork takes is not known beforehand
    m_forkBusy->setMaximumWidth(120);
    m_forkBusy->hide();
    statusBar()->addPermanentWidget(m_forkBusy);
    auto* view = new QMenu(tr("&View"), this);
    QAction* resources = graphDock->toggleViewAction();
    resources->setText(tr("&Resources"));
    resources->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    view->addAction(resources);
    QAction* commandLog = logDock->toggleViewAction();
    commandLog->setText(tr("Command &Log"));
    commandLog->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    view->addAction(commandLog);
    view->addAction(sessionDock->toggleViewAction());
    QAction* approvals = approvalDock->toggleViewAction();
    approvals->setText(tr("&Approval Queue"));
    approvals->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    view->addAction(approvals);
    view->addAction(tr("Approval &Policy…"), this, &MainWindow::editPolicy);
    QMenu* agents = createAgentServer(view);
    menuBar()->insertMenu(menuBar()->actions().constLast(), view);
    menuBar()->insertMenu(menuBar()->actions().constLast(), agents);

    connect(m_runPane, &RunPane::stateChanged, this, &MainWindow::updateActions);
    connect(m_runPane, &RunPane::runFinished, this, &MainWindow::onRunFinished);
    connect(m_sessionList, &SessionListPane::runSelected, this, &MainWindow::showRun);
    connect(m_sessionList, &SessionListPane::workspaceSelected, this, &MainWindow::showWorkspace);
    connect(m_workspaceActions, &WorkspaceActions::operationFinished, this,
            &MainWindow::onOperationFinished);
    connect(m_workspaceActions, &WorkspaceActions::forkStarted, this, &MainWindow::onForkStarted);
    connect(m_workspaceActions, &WorkspaceActions::operationFinished, this, &MainWindow::onForkFinished);
    connect(m_workspaceActions, &WorkspaceActions::operationFinished, m_sessionModel,
            [this](const OperationReport& report) {
                if (report.kind == ActionKind::Revert && report.result)
                    m_sessionModel->askUptimeAgain(report.workspace);
            });
    connect(m_workspaceActions, &WorkspaceActions::workspaceCreated, m_sessionList,
            &SessionListPane::select);
    connect(m_workspaceActions, &WorkspaceActions::newTerminalRequested, this,
            &MainWindow::openWorkspaceTerminal);
    connect(m_workspaces, &WorkspaceManager::connectedChanged, this,
            [this, lost = false](bool connected, const QString& reason) mutable {
                // The first connection (the reattach at start) is no news; one after a loss is.
                if (connected && lost)
                    statusBar()->showMessage(tr("Connected to libvirt again; states refreshed"), 5000);
                else if (!connected)
                    statusBar()->showMessage(tr("Lost the libvirt connection (%1); reconnecting…").arg(reason));
                lost = !connected;
                m_connectionStatus->refresh();
            });
    keepSessionDockWidth();
    updateActions();
    resize(1180, 760);
    restoreLayout();

    m_connectionStatus->refresh();
    // Reattach: find the workspaces that outlived the last window, with their true states.
    QTimer::singleShot(0, this, [this] {
        if (auto listed = m_workspaces->refresh(); !listed)
            statusBar()->showMessage(tr("Cannot list workspaces: %1").arg(listed.error().message));
    });
}

MainWindow::~MainWindow() = default;

void MainWindow::keepSessionDockWidth()
{
    m_sessionDock->installEventFilter(this);
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        if (dock == m_sessionDock)
            continue;
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (!visible) // after the layout has given the room away
                QTimer::singleShot(0, this, &MainWindow::restoreSessionDockWidth);
        });
    }
}

void MainWindow::restoreSessionDockWidth()
{
    if (m_sessionDock->isVisible() && !m_sessionDock->isFloating() &&
        m_sessionDock->width() < m_sessionDockWidth)
        resizeDocks({m_sessionDock}, {m_sessionDockWidth}, Qt::Horizontal);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_sessionDock && event->type() == QEvent::Resize &&
        !m_sessionDock->isFloating()) {
        // A width chosen with no other dock at the sides is the one to come back to.
        const auto docks = findChildren<QDockWidget*>();
        const bool alone = std::none_of(docks.cbegin(), docks.cend(), [this](QDockWidget* dock) {
            const Qt::DockWidgetArea area = dockWidgetArea(dock);
            return dock != m_sessionDock && !dock->isHidden() && !dock->isFloating() &&
                   (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea);
        });
        if (alone)
            m_sessionDockWidth = m_sessionDock->width();
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    restoreGeometry(settings.value(kGeometrySetting).toByteArray());
    restoreState(settings.value(kStateSetting).toByteArray(), kStateVersion);
    settings.beginGroup(kSplitterGroup);
    for (QSplitter* splitter : findChildren<QSplitter*>()) {
        if (!splitter->objectName().isEmpty())
            splitter->restoreState(settings.value(splitter->objectName()).toByteArray());
    }
    settings.endGroup();
    m_runPane->restoreSettings(settings);
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(kGeometrySetting, saveGeometry());
    settings.setValue(kStateSetting, saveState(kStateVersion));
    settings.beginGroup(kSplitterGroup);
    for (const QSplitter* splitter : findChildren<QSplitter*>()) {
        if (!splitter->objectName().isEmpty())
            settings.setValue(splitter->objectName(), splitter->saveState());
    }
    settings.endGroup();
    m_runPane->saveSettings(settings);
}

void MainWindow::createActions()
{
    m_openAction = new QAction(QIcon::fromTheme(QStringLiteral("document-open"),
                                                style()->standardIcon(QStyle::SP_DialogOpenButton)),
                               tr("&Open Script…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setToolTip(tr("Load a script file into the editor (Ctrl+O)"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openScript);

    m_saveStdoutAction = new QAction(tr("Save Standard &Output…"), this);
    m_saveStdoutAction->setShortcut(QKeySequence::Save);
    connect(m_saveStdoutAction, &QAction::triggered, this, &MainWindow::saveStdout);
    m_saveStderrAction = new QAction(tr("Save Standard &Error…"), this);
    connect(m_saveStderrAction, &QAction::triggered, this, &MainWindow::saveStderr);

    m_quitAction =
        new QAction(QIcon::fromTheme(QStringLiteral("application-exit")), tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &MainWindow::close);

    m_runAction = new QAction(QIcon::fromTheme(QStringLiteral("media-playback-start"),
                                               style()->standardIcon(QStyle::SP_MediaPlay)),
                              tr("&Run"), this);
    m_runAction->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    m_runAction->setToolTip(tr("Run the script in a fresh microVM (Ctrl+Return)"));
    connect(m_runAction, &QAction::triggered, m_runPane, &RunPane::run);

    m_cancelAction = new QAction(QIcon::fromTheme(QStringLiteral("process-stop"),
                                                  style()->standardIcon(QStyle::SP_MediaStop)),
                                 tr("&Cancel"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setToolTip(tr("Stop the run and destroy its microVM (Esc)"));
    connect(m_cancelAction, &QAction::triggered, m_runPane, &RunPane::cancel);

    m_refreshAction = new QAction(QIcon::fromTheme(QStringLiteral("view-refresh")),
                                  tr("Re&fresh Sessions"), this);
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    connect(m_refreshAction, &QAction::triggered, this, [this] {
        if (auto listed = m_workspaces->refresh(); !listed)
            statusBar()->showMessage(listed.error().message, 8000);
    });

    // After a run, the next runs' microVMs are made in the background and wait paused, so
    // the next Runs skip the boot.
    m_readyMicroVmsMenu = new ReadyMicroVmsMenu(m_sandboxPool.get(), this);
    // The choice holds for every host's pool (the menu sets the first host's itself).
    connect(m_readyMicroVmsMenu, &QMenu::triggered, this, [this] {
        for (const Host* host : m_workbench->hosts())
            host->sandboxPool()->setSize(m_readyMicroVmsMenu->size());
    });
    m_runHostMenu = new RunHostMenu(m_workbench, m_runPane, this); // sets the run pane's host
    m_workspaceActions->setHosts([workbench = m_workbench] {
        QList<HypervisorConnection*> connections;
        for (const Host* host : workbench->hosts())
            connections << host->connection();
        return connections;
    });

    m_aboutAction = new QAction(tr("&About Sandbox Workbench"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    QMenu* examples = file->addMenu(tr("&Examples"));
    examples->setObjectName(QStringLiteral("examplesMenu"));
    for (const ExampleScript& example : ExampleScript::all()) {
        QAction* action = examples->addAction(example.title);
        action->setToolTip(QDir::toNativeSeparators(example.script));
        connect(action, &QAction::triggered, this, [this, example] { loadExample(example); });
    }
    examples->setEnabled(!examples->isEmpty());
    file->addSeparator();
    file->addAction(tr("Add &Connection…"), this, &MainWindow::askConnection);
    file->addSeparator();
    file->addAction(m_saveStdoutAction);
    file->addAction(m_saveStderrAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);
    run->addSeparator();
    run->addMenu(m_readyMicroVmsMenu);
    run->addMenu(m_runHostMenu);

    QMenu* workspace = menuBar()->addMenu(tr("&Workspace"));
    workspace->addAction(m_workspaceActions->newAction());
    workspace->addSeparator();
    workspace->addActions(m_workspaceActions->lifecycleActions());
    workspace->addAction(m_workspaceActions->forkAction());
    workspace->addAction(m_workspaceActions->checkpointBeforeApprovedAction());
    workspace->addSeparator();
    workspace->addAction(m_workspaceActions->newTerminalAction());
    workspace->addSeparator();
    workspace->addAction(m_workspaceActions->deleteAction());
    workspace->addSeparator();
    workspace->addAction(m_refreshAction);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
}

QMenu* MainWindow::createAgentServer(QMenu* view)
{
    if (const auto& loaded = m_workbench->tokenLoaded(); !loaded)
        statusBar()->showMessage(loaded.error().message);
    m_agentsPane = new AgentsPane(m_mcpServer, m_mcpHttp, m_workbench->mcpToken(), this);

    auto* dock = new QDockWidget(tr("Agents"), this);
    dock->setObjectName(QStringLiteral("agentsDock"));
    dock->setWidget(m_agentsPane);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide(); // View ▸ Agents
    QAction* show = dock->toggleViewAction();
    show->setText(tr("&Agents"));
    view->addAction(show);
    QMenu* agents = new QMenu(tr("&Agents"), this);
    agents->addAction(m_agentsPane->serverAction());
    agents->addAction(show);
    return agents;
}

QDockWidget* MainWindow::createApprovalDock()
{
    if (const auto& loaded = m_workbench->policyLoaded(); !loaded)
        statusBar()->showMessage(
            tr("The approval policy cannot be read (%1); agents are asked for every action").arg(loaded.error().message));
    m_approvalPane = new ApprovalQueuePane(m_approvals);
    m_approvalPane->setContentReader([this](const QString& sandbox, const QString& path, qint64 maxBytes) {
        using Content = ApprovalQueuePane::CurrentContent;
        const std::shared_ptr<Workspace> workspace = m_workspaces->workspace(sandbox);
        return runAsync([workspace, sandbox, path, maxBytes]() -> Expected<Content> {
            if (!workspace)
                return makeError(tr("there is no workspace %1").arg(sandbox));
            auto session = workspace->session(std::chrono::steady_clock::now() + std::chrono::seconds(10));
            if (!session)
                return session.error();
            auto sftp = session.value()->openSftp();
            if (!sftp)
                return sftp.error();
            auto info = sftp.value()->stat(path.toUtf8());
            if (!info)
                return info.error();
            if (info->size > maxBytes)
                return Content{info->size, std::nullopt};
            QTemporaryDir dir;
            const QString target = dir.filePath(QStringLiteral("current"));
            if (auto copied = sftp.value()->download(path.toUtf8(), target); !copied)
                return copied.error();
            QFile file(target);
            if (!file.open(QIODevice::ReadOnly))
                return makeError(tr("cannot read the downloaded copy of %1").arg(path));
            if (file.size() > maxBytes) // it grew after the stat
                return Content{file.size(), std::nullopt};
            return Content{file.size(), file.readAll()};
        });
    });
    m_approvalPane->setPreviewRunner([this](const ActionRequest& request) {
        const std::shared_ptr<Workspace> workspace = m_workspaces->workspace(request.sandbox);
        return runAsync([workspace, request, log = m_commandLog]() -> Expected<std::shared_ptr<ActionPreview>> {
            if (!workspace)
                return makeError(tr("there is no workspace %1").arg(request.sandbox));
            auto preview = ActionPreview::run(workspace, request, log);
            if (!preview)
                return preview.error();
            return std::shared_ptr<ActionPreview>(std::move(preview.value()));
        });
    });
    m_approvalPane->setDestinationRuleWriter(
        [this](const QString& sandbox, const NetworkDestination& destination, PolicyDecision decision) {
            return setDestinationRule(sandbox, destination, decision);
        });
    auto* dock = new QDockWidget(tr("Approvals"), this);
    dock->setObjectName(QStringLiteral("approvalDock"));
    dock->setWidget(m_approvalPane);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->hide(); // View ▸ Approval Queue; shown when an action waits
    connect(m_approvals, &ApprovalQueue::added, dock, [dock] {
        dock->show();
        dock->raise();
    });
    return dock;
}

Expected<void> MainWindow::setDestinationRule(const QString& sandbox, const NetworkDestination& destination,
                                              PolicyDecision decision)
{
    const QString workspace = m_workspaces->workspace(sandbox) ? sandbox : QString();
    return m_gate->setDestinationRule(workspace, destination, decision, m_approvalPane->approverName());
}

void MainWindow::editPolicy()
{
    QStringList names;
    for (const WorkspaceManager::Entry& entry : m_workspaces->workspaces())
        names.append(entry.record.name); // the policy names workspaces without their host
    auto* dialog = new PolicyEditorDialog(m_gate->policy(), Policy::defaultPath(), names, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PolicyEditorDialog::saved, m_gate, &PolicyGate::setPolicy);
    dialog->open();
}

void MainWindow::askConnection()
{
    bool ok = false;
    const QString uri = QInputDialog::getText(
        this, tr("Add Connection"),
        tr("libvirt connection URI, e.g. qemu+ssh://user@server/system\n"
           "(SSH authenticates with your SSH agent or keys; libvirt's own URI parameters apply):"),
        QLineEdit::Normal, QStringLiteral("qemu+ssh://"), &ok);
    if (!ok)
        return;
    if (auto added = addConnection(uri, true); !added)
        QMessageBox::warning(this, tr("Add Connection"), added.error().message);
}

Expected<void> MainWindow::addConnection(const QString& uri, bool remember)
{
    auto added = m_workbench->addHost(uri);
    if (!added)
        return added.error();
    added.value()->sampler()->start();
    added.value()->sandboxPool()->setSize(m_readyMicroVmsMenu->size()); // Run ▸ Ready MicroVMs
    statusBar()->showMessage(tr("Connecting to %1…").arg(added.value()->uri()), 5000);
    if (remember) {
        QSettings settings;
        QStringList uris = settings.value(QStringLiteral("connections/uris")).toStringList();
        if (!uris.contains(added.value()->uri()))
            settings.setValue(QStringLiteral("connections/uris"), uris << added.value()->uri());
    }
    return {};
}

void MainWindow::addRememberedConnections()
{
    for (const QString& uri : QSettings().value(QStringLiteral("connections/uris")).toStringList()) {
        if (m_workbench->host(uri))
            continue;
        if (auto added = addConnection(uri, false); !added)
            statusBar()->showMessage(tr("Cannot add the connection %1: %2").arg(uri, added.error().message));
    }
}

void MainWindow::createToolBar()
{
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_openAction);
    bar->addSeparator();
    bar->addAction(m_workspaceActions->newAction());
    bar->addActions(m_workspaceActions->lifecycleActions());
}

void MainWindow::showRun()
{
    m_workspaceActions->setCurrent({});
    m_center->setCurrentWidget(m_runPane);
}

void MainWindow::showWorkspace(const QString& name)
{
    m_currentWorkspace = name;
    m_workspaceActions->setCurrent(name);
    m_workspacePane->setWorkspace(name);
    m_center->setCurrentWidget(m_workspaceTabs);
    showWorkspaceTab();
    // The Resources dock follows the workspace's host.
    for (const auto& entry : m_workspaces->workspaces()) {
        if (entry.name != name)
            continue;
        if (Host* host = entry.host ? m_workbench->host(entry.host->uri()) : nullptr)
            m_graphPane->setSampler(host->sampler());
        m_graphPane->selectSandbox(entry.record.uuid);
    }
}

void MainWindow::createWorkspaceTabs()
{
    m_workspaceTabs = new QTabWidget(this);
    m_workspaceTabs->setDocumentMode(true);
    const auto readyDeadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(120); };
    WorkspaceManager* manager = m_workspaces;
    m_terminals = new SandboxPageStack(
        [manager, readyDeadline](const QString& name) -> QWidget* {
            auto* tabs = new TerminalTabs(QStringLiteral("workspace-") + name, [manager, name, readyDeadline]()
                                              -> Expected<std::shared_ptr<GuestSession>> {
                const auto workspace = manager->workspace(name);
                if (!workspace)
                    return makeError(tr("workspace '%1' no longer exists").arg(name));
                return workspace->session(readyDeadline());
            }, TerminalTab::Lifetime::Detachable);
            if (canExec(manager->state(name)))
                tabs->openTerminal();
            return tabs;
        },
        tr("Select a workspace"), this);
    m_files = new SandboxPageStack(
        [this, manager, readyDeadline](const QString& name) -> QWidget* {
            auto* page = new WorkspaceFilesPage([manager, name, readyDeadline]()
                                              -> Expected<std::shared_ptr<SftpClient>> {
                const auto workspace = manager->workspace(name);
                if (!workspace)
                    return makeError(tr("workspace '%1' no longer exists").arg(name));
                auto session = workspace->session(readyDeadline());
                if (!session)
                    return session.error();
                auto sftp = session.value()->openSftp();
                if (!sftp)
                    return sftp.error();
                // The SFTP client keeps the session (and its bridge) alive with it.
                std::shared_ptr<GuestSession> keep = session.value();
                SftpClient* client = sftp.value().release();
                return std::shared_ptr<SftpClient>(client, [keep](SftpClient* c) { delete c; });
            });
            page->setCommandLog(m_commandLog, name); // transfers and deletes are log rows
            followGuest(manager, name, page,
                        [page](WorkspaceState state) {
                            page->showGuestDown(tr("The workspace is %1; its files show here while it runs.")
                                                    .arg(workspaceStateName(state)));
                        },
                        [page] { page->connectToGuest(); });
            return page;
        },
        tr("Select a workspace"), this);
    m_browsers = new SandboxPageStack(
        [this, manager](const QString& name) -> QWidget* {
            auto* page = new WorkspaceBrowserPage(name, [manager, name] { return manager->workspace(name); },
                                                  TerminalApprover::localUserName());
            page->setCommandLog(m_commandLog); // the person's steps are log rows
            followGuest(manager, name, page,
                        [page](WorkspaceState state) {
                            page->showGuestDown(tr("The workspace is %1; its browser shows here while it runs.")
                                                    .arg(workspaceStateName(state)));
                        },
                        [page] { page->connectToBrowser(); });
            return page;
        },
        tr("Select a workspace"), this);
    m_consoles = new SandboxPageStack(
        [manager](const QString& name) -> QWidget* {
            const auto workspace = manager->workspace(name);
            if (!workspace)
                return new QLabel(tr("Workspace '%1' no longer exists").arg(name));
            // On the workspace's own host, by its own name (`name` may be NAME@HOST).
            return new SerialConsoleView(workspace->connection(), workspaceDomainName(workspace->name()));
        },
        tr("Select a workspace"), this);
    m_workspaceTabs->addTab(m_workspacePane, tr("&Workspace"));
    m_workspaceTabs->addTab(m_terminals, tr("&Terminal"));
    m_workspaceTabs->addTab(m_files, tr("&Files"));
    m_workspaceTabs->addTab(m_browsers, tr("&Browser"));
    m_workspaceTabs->addTab(m_consoles, tr("Serial &Console"));
    if (m_commandLog) {
        m_networks = new SandboxPageStack(
            [this](const QString& name) -> QWidget* {
                const auto workspace = m_workspaces->workspace(name);
                // Log rows carry the workspace's own name (without its host).
                return new NetworkPane(m_commandLog, workspace ? workspace->name() : name,
                                       workspace ? workspace->record().settings.network : WorkspaceNetwork::None,
                                       [this](const QString& sandbox, const NetworkDestination& destination,
                                              PolicyDecision decision) {
                                           return setDestinationRule(sandbox, destination, decision);
                                       });
            },
            tr("Select a workspace"), this);
        m_workspaceTabs->addTab(m_networks, tr("&Network"));
    }
    connect(m_workspaceTabs, &QTabWidget::currentChanged, this, &MainWindow::showWorkspaceTab);
    // Terminals that lost their connection (hibernate, stop, a revert, a lost libvirt
    // connection) reconnect once the guest runs again.
    connect(m_workspaces, &WorkspaceManager::stateChanged, this, &MainWindow::reconnectTerminals);
    connect(m_workspaces, &WorkspaceManager::connectedChanged, this, [this](bool connected) {
        if (connected)
            for (const QString& name : m_terminals->sandboxes())
                reconnectTerminals(name);
    });
    connect(m_workspaces, &WorkspaceManager::workspacesChanged, this, [this] {
        // Pages of deleted workspaces go with them.
        if (!m_workspaces->isConnected())
            return;
        QStringList listed;
        for (const auto& entry : m_workspaces->workspaces())
            listed.append(entry.name);
        for (SandboxPageStack* stack : {m_terminals, m_files, m_browsers, m_consoles, m_networks})
            for (const QString& name : stack ? stack->sandboxes() : QStringList())
                if (!listed.contains(name))
                    stack->removeSandbox(name);
    });
}

void MainWindow::openWorkspaceTerminal(const QString& workspace)
{
    // A page made now opens its first shell by itself; an existing one gets another tab.
    const bool existed = m_terminals->page(workspace) != nullptr;
    m_sessionList->select(workspace);
    m_workspaceTabs->setCurrentWidget(m_terminals);
    m_terminals->showSandbox(workspace);
    if (auto* tabs = qobject_cast<TerminalTabs*>(m_terminals->page(workspace)); tabs && existed)
        tabs->openTerminal();
}

void MainWindow::reconnectTerminals(const QString& workspace)
{
    if (auto* tabs = qobject_cast<TerminalTabs*>(m_terminals->page(workspace));
        tabs && canExec(m_workspaces->state(workspace)))
        tabs->reconnect();
}

void MainWindow::showWorkspaceTab()
{
    // Pages are made when their tab is first shown for a workspace: a console attaches, a
    // terminal connects.
    auto* stack = qobject_cast<SandboxPageStack*>(m_workspaceTabs->currentWidget());
    if (stack)
        stack->showSandbox(m_currentWorkspace);
}

void MainWindow::onOperationFinished(const OperationReport& report)
{
    const QString& what = report.what;
    const QString& workspace = report.workspace;
    const QString& notice = report.notice;
    if (report.result && report.warning) {
        statusBar()->showMessage(tr("%1 of workspace '%2': %3").arg(what, workspace, notice));
        QMessageBox::warning(this, tr("%1 Workspace").arg(what),
                             tr("Workspace '%1' was %2").arg(workspace, notice));
        return;
    }
    if (report.result) {
        statusBar()->showMessage(tr("%1 of workspace '%2': %3")
                                     .arg(what, workspace, notice.isEmpty() ? tr("done") : notice),
                                 notice.isEmpty() ? 5000 : 15000);
        return;
    }
    statusBar()->showMessage(tr("%1 of workspace '%2' failed").arg(what, workspace), 8000);
    QMessageBox::warning(this, tr("%1 Workspace").arg(what), report.result.error().message);
}

void MainWindow::onForkStarted(const QString& source, const QString& fork)
{
    ++m_forksUnderWay;
    m_forkBusy->show();
    statusBar()->showMessage(tr("Forking workspace '%1' into '%2'…").arg(source, fork));
}

void MainWindow::onForkFinished(const OperationReport& report)
{
    if (report.kind != ActionKind::Fork)
        return;
    // The fork's copied policy rules reach the gate through its watch on the policy file.
    m_forkBusy->setVisible(--m_forksUnderWay > 0);
}

void MainWindow::updateActions()
{
    const bool running = m_runPane->isRunning();
    const bool idle = !running && !m_closePending;
    m_sessionModel->setRunState(running, {},
                                running ? (m_runPane->isCancelling() ? tr("cancelling") : tr("running"))
                                        : QString());
    const auto& result = m_runPane->lastResult();
    m_runAction->setEnabled(idle);
    m_cancelAction->setEnabled(running && !m_runPane->isCancelling());
    m_openAction->setEnabled(!m_closePending);
    m_saveStdoutAction->setEnabled(idle && result && !result->stdoutData.isEmpty());
    m_saveStderrAction->setEnabled(idle && result && !result->stderrData.isEmpty());
}

void MainWindow::onRunFinished(const RunResult&)
{
    updateActions();
    m_connectionStatus->refreshIfDisconnected();
    if (m_closePending) {
        statusBar()->clearMessage();
        // Close from the event loop, after the controller has finished emitting.
        QTimer::singleShot(0, this, [this] {
            m_closePending = false;
            close();
        });
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_runPane->isRunning()) {
        saveLayout();
        event->accept();
        return;
    }
    // Destroying a RunController mid-run would block until the VM is gone: cancel instead and
    // close when finished() arrives.
    event->ignore();
    if (m_closePending)
        return;
    m_closePending = true;
    m_runPane->cancel();
    m_runPane->setEnabled(false);
    statusBar()->showMessage(tr("Cleaning up… the window closes when the microVM is destroyed."));
    updateActions();
}

void MainWindow::openScript()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Script"), QString(),
        tr("Scripts (*.py *.sh *.bash);;Python scripts (*.py);;Shell scripts (*.sh *.bash);;"
           "All files (*)"));
    if (path.isEmpty())
        return;
    if (auto loaded = m_runPane->loadScript(path); !loaded)
        QMessageBox::warning(this, tr("Open Script"), loaded.error().message);
    else
        statusBar()->showMessage(tr("Loaded %1").arg(path), 5000);
}

void MainWindow::loadExample(const ExampleScript& example)
{
    if (m_runPane->isRunning()) {
        statusBar()->showMessage(tr("A run is going on; load the example when it has ended."), 5000);
        return;
    }
    if (auto loaded = m_runPane->loadScript(example.script); !loaded) {
        QMessageBox::warning(this, tr("Examples"), loaded.error().message);
        return;
    }
    m_runPane->setImage(example.image);
    m_runPane->inputFilesList()->clearFiles();
    m_runPane->addInputFiles(example.inputFiles);
    statusBar()->showMessage(tr("Loaded the example \"%1\" (image %2)").arg(example.title, example.image), 5000);
}

void MainWindow::saveStdout()
{
    if (const auto& result = m_runPane->lastResult())
        saveBytes(result->stdoutData, tr("Save Standard Output"), QStringLiteral("stdout.txt"));
}

void MainWindow::saveStderr()
{
    if (const auto& result = m_runPane->lastResult())
        saveBytes(result->stderrData, tr("Save Standard Error"), QStringLiteral("stderr.txt"));
}

void MainWindow::saveBytes(const QByteArray& bytes, const QString& title,
                           const QString& suggestedName)
{
    const QString path = QFileDialog::getSaveFileName(this, title, suggestedName);
    if (path.isEmpty())
        return;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        QMessageBox::warning(this, title, tr("Cannot write %1: %2").arg(path, file.errorString()));
        return;
    }
    statusBar()->showMessage(tr("Saved %1 bytes to %2").arg(bytes.size()).arg(path), 5000);
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About Sandbox Workbench"),
        tr("<h3>Sandbox Workbench %1</h3>"
           "<p>Runs scripts in fresh libvirt QEMU microVMs: each run gets its own VM, which is "
           "destroyed when the run ends.</p>"
           "<p>Connection: %2</p>")
            .arg(QStringLiteral(SBW_VERSION), m_connection->uri().toHtmlEscaped()));
}

} // namespace sbw
