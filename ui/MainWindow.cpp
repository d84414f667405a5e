#include "MainWindow.h"

#include "CommandLog.h"
#include "CommandLogPane.h"
#include "ConnectionStatusLabel.h"
#include "GraphPane.h"
#include "HypervisorConnection.h"
#include "PerSandboxStack.h"
#include "SerialConsoleView.h"
#include "SftpClient.h"
#include "StatsSampler.h"
#include "TerminalTabs.h"
#include "Workspace.h"
#include "WorkspaceFilesPage.h"
#include "RunPane.h"
#include "SessionListModel.h"
#include "SessionListPane.h"
#include "WorkspaceActions.h"
#include "WorkspaceManager.h"
#include "WorkspacePane.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

// Q_INIT_RESOURCE must be used outside any namespace. The resources live in the static sbw-ui
// library, whose initialiser the linker would otherwise drop.
static void initResources()
{
    Q_INIT_RESOURCE(sandbox_workbench);
}

namespace sbw {

MainWindow::MainWindow(HypervisorConnection* connection, QWidget* parent)
    : QMainWindow(parent), m_connection(connection),
      m_workspaces(new WorkspaceManager(connection, this)),
      m_workspaceActions(new WorkspaceActions(connection, m_workspaces, this)),
      m_sessionModel(new SessionListModel(m_workspaces, this)),
      m_runPane(new RunPane(connection, this)),
      m_workspacePane(new WorkspacePane(m_workspaces, m_workspaceActions, this)),
      m_sessionList(new SessionListPane(m_sessionModel, m_workspaceActions, this)),
      m_center(new QStackedWidget(this)), m_sampler(new StatsSampler(connection, std::chrono::seconds(1), this)),
      m_graphPane(new GraphPane(m_sampler, this)),
      m_connectionStatus(new ConnectionStatusLabel(connection, this))
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
    if (auto log = CommandLog::open(CommandLog::defaultPath())) {
        m_commandLog = log.value();
        m_workspacePane->setCommandLog(m_commandLog);
        m_workspaceActions->setCommandLog(m_commandLog);
        m_runPane->setCommandLog(m_commandLog);
        logDock->setWidget(new CommandLogPane(m_commandLog, logDock));
    } else {
        auto* failed = new QLabel(tr("The command log cannot be opened: %1").arg(log.error().message), logDock);
        failed->setWordWrap(true);
        failed->setTextFormat(Qt::PlainText);
        logDock->setWidget(failed);
    }
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    tabifyDockWidget(graphDock, logDock);
    logDock->hide(); // View ▸ Command Log

    auto* sessionDock = new QDockWidget(tr("Sessions"), this);
    sessionDock->setObjectName(QStringLiteral("sessionDock"));
    sessionDock->setFeatures(QDockWidget::DockWidgetMovable);
    sessionDock->setWidget(m_sessionList);
    addDockWidget(Qt::LeftDockWidgetArea, sessionDock);
    resizeDocks({sessionDock}, {300}, Qt::Horizontal);

    createActions();
    createMenus();
    createToolBar();
    statusBar()->addPermanentWidget(m_connectionStatus);
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
    menuBar()->insertMenu(menuBar()->actions().constLast(), view);

    connect(m_runPane, &RunPane::stateChanged, this, &MainWindow::updateActions);
    connect(m_runPane, &RunPane::runFinished, this, &MainWindow::onRunFinished);
    connect(m_sessionList, &SessionListPane::runSelected, this, &MainWindow::showRun);
    connect(m_sessionList, &SessionListPane::workspaceSelected, this, &MainWindow::showWorkspace);
    connect(m_workspaceActions, &WorkspaceActions::operationFinished, this,
            &MainWindow::onOperationFinished);
    connect(m_workspaceActions, &WorkspaceActions::workspaceCreated, m_sessionList,
            &SessionListPane::select);
    connect(m_workspaces, &WorkspaceManager::connectedChanged, this,
            [this](bool connected, const QString& reason) {
                if (connected)
                    statusBar()->showMessage(tr("Connected to libvirt again; states refreshed"), 5000);
                else
                    statusBar()->showMessage(tr("Lost the libvirt connection (%1); reconnecting…").arg(reason));
                m_connectionStatus->refresh();
            });
    updateActions();
    resize(1180, 760);

    m_connectionStatus->refresh();
    // Reattach: find the workspaces that outlived the last window, with their true states.
    QTimer::singleShot(0, this, [this] {
        if (auto listed = m_workspaces->refresh(); !listed)
            statusBar()->showMessage(tr("Cannot list workspaces: %1").arg(listed.error().message));
    });
}

MainWindow::~MainWindow() = default;

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

    m_aboutAction = new QAction(tr("&About Sandbox Workbench"), this);
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    file->addSeparator();
    file->addAction(m_saveStdoutAction);
    file->addAction(m_saveStderrAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAction);
    run->addAction(m_cancelAction);

    QMenu* workspace = menuBar()->addMenu(tr("&Workspace"));
    workspace->addAction(m_workspaceActions->newAction());
    workspace->addSeparator();
    workspace->addActions(m_workspaceActions->lifecycleActions());
    workspace->addSeparator();
    workspace->addAction(m_workspaceActions->deleteAction());
    workspace->addSeparator();
    workspace->addAction(m_refreshAction);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_aboutAction);
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
    for (const auto& entry : m_workspaces->workspaces())
        if (entry.record.name == name)
            m_graphPane->selectSandbox(entry.record.uuid);
}

void MainWindow::createWorkspaceTabs()
{
    m_workspaceTabs = new QTabWidget(this);
    m_workspaceTabs->setDocumentMode(true);
    const auto readyDeadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(120); };
    WorkspaceManager* manager = m_workspaces;
    m_terminals = new PerSandboxStack(
        [manager, readyDeadline](const QString& name) -> QWidget* {
            auto* tabs = new TerminalTabs(QStringLiteral("workspace-") + name, [manager, name, readyDeadline]()
                                              -> Expected<std::shared_ptr<GuestSession>> {
                const auto workspace = manager->workspace(name);
                if (!workspace)
                    return makeError(tr("workspace '%1' no longer exists").arg(name));
                return workspace->session(readyDeadline());
            });
            if (canExec(manager->state(name)))
                tabs->openTerminal();
            return tabs;
        },
        tr("Select a workspace"), this);
    m_files = new PerSandboxStack(
        [manager, readyDeadline](const QString& name) -> QWidget* {
            return new WorkspaceFilesPage([manager, name, readyDeadline]()
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
        },
        tr("Select a workspace"), this);
    HypervisorConnection* connection = m_connection;
    m_consoles = new PerSandboxStack(
        [connection](const QString& name) -> QWidget* {
            return new SerialConsoleView(*connection, workspaceDomainName(name));
        },
        tr("Select a workspace"), this);
    m_workspaceTabs->addTab(m_workspacePane, tr("&Workspace"));
    m_workspaceTabs->addTab(m_terminals, tr("&Terminal"));
    m_workspaceTabs->addTab(m_files, tr("&Files"));
    m_workspaceTabs->addTab(m_consoles, tr("Serial &Console"));
    connect(m_workspaceTabs, &QTabWidget::currentChanged, this, &MainWindow::showWorkspaceTab);
    connect(m_workspaces, &WorkspaceManager::workspacesChanged, this, [this] {
        // Pages of deleted workspaces go with them.
        if (!m_workspaces->isConnected())
            return;
        QStringList listed;
        for (const auto& entry : m_workspaces->workspaces())
            listed.append(entry.record.name);
        for (PerSandboxStack* stack : {m_terminals, m_files, m_consoles})
            for (const QString& name : stack->sandboxes())
                if (!listed.contains(name))
                    stack->removeSandbox(name);
    });
}

void MainWindow::showWorkspaceTab()
{
    // Pages are made when their tab is first shown for a workspace: a console attaches, a
    // terminal connects.
    auto* stack = qobject_cast<PerSandboxStack*>(m_workspaceTabs->currentWidget());
    if (stack)
        stack->showSandbox(m_currentWorkspace);
}

void MainWindow::onOperationFinished(const QString& workspace, const QString& what,
                                     const QString& error)
{
    if (error.isEmpty()) {
        statusBar()->showMessage(tr("%1 of workspace '%2': done").arg(what, workspace), 5000);
        return;
    }
    statusBar()->showMessage(tr("%1 of workspace '%2' failed").arg(what, workspace), 8000);
    QMessageBox::warning(this, tr("%1 Workspace").arg(what), error);
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
