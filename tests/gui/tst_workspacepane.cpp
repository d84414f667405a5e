// The workspace pane and session list on a real workspace: the session list finds it with its
// state, a command typed on the pane's command line runs in the guest with its output and exit
// status shown, a file written by one command is there for the next, Pause and Resume from the
// toolbar actions change the state libvirt reports, a checkpoint appears in the timeline, the
// Terminal tab runs a PTY shell (recorded as asciicast), the Files tab lists /root over SFTP
// and the Serial Console tab is attached; Stop shuts it down cleanly and says so.
// Needs a running libvirt daemon and the guest image (packaging/guest/build-image.sh minimal).

#include "TemporarySettings.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "files/WorkspaceFilesPage.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "log/SecretMasker.h"
#include "terminal/SerialConsoleView.h"
#include "terminal/TerminalTab.h"
#include "terminal/TerminalTabs.h"
#include "terminal/TerminalWidget.h"
#include "widgets/OutputView.h"
#include "widgets/SandboxPageStack.h"
#include "window/MainWindow.h"
#include "window/SessionListModel.h"
#include "window/SessionListPane.h"
#include "workbench/Workbench.h"
#include "workspace/NewWorkspaceDialog.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspacePane.h"
#include "workspace/WorkspaceSettingsDialog.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>
#include <libvirt/libvirt.h>

using namespace sbw;

namespace {

constexpr int kBootTimeoutMs = 240 * 1000;
constexpr int kCommandTimeoutMs = 120 * 1000;

} // namespace

class TestWorkspacePane : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void sessionListShowsWorkspaceAndState();
    void commandRunsWithOutputAndExitStatus();
    void fileWrittenByOneCommandIsThereForTheNext();
    void commandLimitIsNamedInPaneAndLog();
    void settingsDialogVariablesReachCommandsMasked();
    void newWorkspaceDialogSettingsReachTheDomain();
    void newWorkspaceStartsNowUnlessTurnedOff();
    void pauseAndResumeFromActions();
    void checkpointAppearsInTimeline();
    void terminalTabRunsAShellAndRecordsIt();
    void filesTabListsTheWorkspaceFolder();
    void consoleTabIsAttached();
    void stopFromTheWindowSaysHowItWent();

private:
    /// Runs `command` through the pane's command line; returns the outcome.
    WorkspaceCommandOutcome runTyped(const QString& command);
    void waitForState(WorkspaceState state, int timeoutMs);

    QString m_name;
    std::unique_ptr<HypervisorConnection> m_connection;
    std::unique_ptr<Workbench> m_workbench; ///< outlives the window, as in the program
    std::unique_ptr<MainWindow> m_window;
    test::TemporarySettings m_settings; ///< the windows' layouts and choices, never the person's
};

void TestWorkspacePane::initTestCase()
{
    m_name = QStringLiteral("gui-test-%1").arg(QCoreApplication::applicationPid());
    m_connection = std::make_unique<HypervisorConnection>(defaultConnectionUri());
    QVERIFY(m_connection->ensureOpen().ok());
    WorkspaceSettings settings;
    settings.memoryMiB = 256;
    auto created = Workspace::create(*m_connection, m_name, settings);
    QVERIFY2(created.ok(), qPrintable(created.ok() ? QString() : created.error().message));
    auto started = created.value()->start();
    QVERIFY2(started.ok(), qPrintable(started.ok() ? QString() : started.error().message));

    m_workbench = std::make_unique<Workbench>(m_connection.get());
    m_window = std::make_unique<MainWindow>(m_workbench.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestWorkspacePane::cleanupTestCase()
{
    m_window.reset();
    m_workbench.reset();
    if (m_connection) {
        if (auto workspace = Workspace::open(*m_connection, m_name); workspace.ok())
            QVERIFY(workspace.value()->remove().ok());
    }
}

void TestWorkspacePane::waitForState(WorkspaceState state, int timeoutMs)
{
    WorkspaceManager* manager = m_window->workspaceManager();
    QTRY_VERIFY_WITH_TIMEOUT(manager->state(m_name) == state, timeoutMs);
    const auto* model = static_cast<SessionListModel*>(m_window->sessionList()->view()->model());
    const int row = model->rowOf(m_name);
    QCOMPARE(model->index(row, SessionListModel::StateColumn).data().toString(),
             workspaceStateName(state));
}

void TestWorkspacePane::sessionListShowsWorkspaceAndState()
{
    const auto* model = static_cast<SessionListModel*>(m_window->sessionList()->view()->model());
    QTRY_VERIFY_WITH_TIMEOUT(model->rowOf(m_name) > 0, 10000);
    QCOMPARE(model->index(SessionListModel::kRunRow, SessionListModel::NameColumn).data().toString(),
             QStringLiteral("Ephemeral run"));
    m_window->sessionList()->select(m_name);
    QCOMPARE(m_window->workspacePane()->workspace(), m_name);
    QCOMPARE(m_window->workspacePane()->output()->placeholderText(),
             QStringLiteral("Output of the command appears here."));
    QCOMPARE(m_window->workspaceActions()->current(), m_name);
    // The guest agent connects once the guest has booted: starting → running.
    waitForState(WorkspaceState::Running, kBootTimeoutMs);
    QVERIFY(m_window->workspaceActions()->pauseAction()->isEnabled());
    QVERIFY(!m_window->workspaceActions()->resumeAction()->isEnabled());
    QVERIFY(!m_window->workspaceActions()->startAction()->isEnabled());
}

WorkspaceCommandOutcome TestWorkspacePane::runTyped(const QString& command)
{
    WorkspacePane* pane = m_window->workspacePane();
    QSignalSpy finished(pane, &WorkspacePane::commandFinished);
    pane->commandLine()->setText(command);
    pane->commandLine()->setFocus();
    QTest::keyClick(pane->commandLine(), Qt::Key_Return);
    [&] { QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kCommandTimeoutMs); }();
    // The focus stays in the command line, ready for the next command.
    [&] { QCOMPARE(QApplication::focusWidget(), pane->commandLine()); }();
    return finished.isEmpty() ? WorkspaceCommandOutcome{}
                              : finished.first().first().value<WorkspaceCommandOutcome>();
}

void TestWorkspacePane::commandRunsWithOutputAndExitStatus()
{
    m_window->sessionList()->select(m_name);
    const auto outcome = runTyped(QStringLiteral("pwd; echo hello-$((6*7)); echo oops >&2; exit 3"));
    QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
    QCOMPARE(outcome.status.exitStatus, std::optional<int>(3));
    const QString shown = m_window->workspacePane()->output()->shownText();
    QVERIFY2(shown.contains(QStringLiteral("/root\nhello-42\noops\n")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("exit status 3")), qPrintable(shown));

    // The command is one row of the command log, with its output.
    const auto log = m_window->commandLog();
    QVERIFY(log);
    LogFilter filter;
    filter.sandbox = m_name;
    const auto rows = log->rows(filter);
    QVERIFY(rows.ok());
    QCOMPARE(rows.value().size(), 1);
    const ActionRecord row = rows.value().first();
    QCOMPARE(row.kind, ActionKind::Exec);
    QCOMPARE(row.actor.kind, Actor::Kind::Person);
    QCOMPARE(row.command, QStringLiteral("pwd; echo hello-$((6*7)); echo oops >&2; exit 3"));
    QCOMPARE(row.outcome, Outcome::Failed);
    QCOMPARE(row.exitStatus, std::optional<int>(3));
    QCOMPARE(row.stdoutBytes, 15);
    QCOMPARE(row.stderrBytes, 5);
    QCOMPARE(log->output(row.id, OutputStream::Stdout).value(), QByteArray("/root\nhello-42\n"));
    QCOMPARE(log->output(row.id, OutputStream::Stderr).value(), QByteArray("oops\n"));
}

void TestWorkspacePane::fileWrittenByOneCommandIsThereForTheNext()
{
    QCOMPARE(runTyped(QStringLiteral("printf 'kept\\n' > note.txt")).status.exitStatus,
             std::optional<int>(0));
    const auto outcome = runTyped(QStringLiteral("cat /root/note.txt"));
    QCOMPARE(outcome.status.exitStatus, std::optional<int>(0));
    QVERIFY(m_window->workspacePane()->output()->shownText().contains(QStringLiteral("\nkept\n")));
}

void TestWorkspacePane::commandLimitIsNamedInPaneAndLog()
{
    WorkspacePane* pane = m_window->workspacePane();
    pane->findChild<QSpinBox*>(QStringLiteral("commandTimeoutBox"))->setValue(2);
    const auto outcome = runTyped(QStringLiteral("sleep 30"));
    pane->findChild<QSpinBox*>(QStringLiteral("commandTimeoutBox"))->setValue(0);
    const QString note = QStringLiteral("the timeout of 2 s ran out; the command was killed");
    QCOMPARE(outcome.limit, std::optional<RunLimit>(RunLimit::Timeout));
    const QString shown = pane->output()->shownText();
    QVERIFY2(shown.contains(note + QStringLiteral(" · timed out and killed · ")), qPrintable(shown));
    LogFilter filter;
    filter.sandbox = m_name;
    const auto rows = m_window->commandLog()->rows(filter, 1);
    QVERIFY(rows.ok() && rows.value().size() == 1);
    QCOMPARE(rows.value().first().command, QStringLiteral("sleep 30"));
    QCOMPARE(rows.value().first().outcome, Outcome::TimedOut);
    QCOMPARE(rows.value().first().error, note);

    // The output cap box (MiB) reaches the command: 1 MiB of stdout passes, then it is killed.
    pane->findChild<QSpinBox*>(QStringLiteral("commandOutputCapBox"))->setValue(1);
    const auto capped = runTyped(QStringLiteral("yes"));
    pane->setCommandLimits(std::chrono::seconds(0), 64);
    QCOMPARE(capped.limit, std::optional<RunLimit>(RunLimit::OutputCap));
    QCOMPARE(m_window->commandLog()->rows(filter, 1).value().first().stdoutBytes, qint64(1) << 20);
}

void TestWorkspacePane::settingsDialogVariablesReachCommandsMasked()
{
    const std::shared_ptr<Workspace> workspace = m_window->workspaceManager()->workspace(m_name);
    QVERIFY(workspace);
    WorkspaceSettingsDialog dialog(m_name, WorkspaceEnvironment{});
    dialog.addVariable(QStringLiteral("GREETING"), QStringLiteral("hi there"), false);
    dialog.addVariable(QStringLiteral("TOKEN"), QStringLiteral("tok-5e1f09"), true);
    QVERIFY(workspace->setEnvironment(dialog.environment()).ok());
    QCOMPARE(workspace->environment().value(), dialog.environment());

    const auto outcome = runTyped(QStringLiteral("echo \"$GREETING/$TOKEN\""));
    QCOMPARE(outcome.status.exitStatus, std::optional<int>(0));
    QVERIFY(m_window->workspacePane()->output()->shownText().contains(
        QStringLiteral("hi there/tok-5e1f09\n")));
    LogFilter filter;
    filter.sandbox = m_name;
    const auto rows = m_window->commandLog()->rows(filter, 1);
    QVERIFY(rows.ok() && rows.value().size() == 1);
    QCOMPARE(m_window->commandLog()->output(rows.value().first().id, OutputStream::Stdout).value(),
             QByteArray("hi there/") + SecretMasker::kMask + "\n");
    QVERIFY(workspace->setEnvironment(WorkspaceEnvironment{}).ok());
}

void TestWorkspacePane::newWorkspaceDialogSettingsReachTheDomain()
{
    // What a person sets in New Workspace is what the domain gets (created, not booted).
    NewWorkspaceDialog dialog;
    const QString name = m_name + QStringLiteral("-new");
    dialog.findChild<QLineEdit*>(QStringLiteral("nameEdit"))->setText(name);
    dialog.findChild<QSpinBox*>(QStringLiteral("vcpusBox"))->setValue(2);
    dialog.findChild<QSpinBox*>(QStringLiteral("memoryBox"))->setValue(384);
    dialog.findChild<QSpinBox*>(QStringLiteral("diskBox"))->setValue(5);
    dialog.findChild<QSpinBox*>(QStringLiteral("cpuShareBox"))->setValue(150);
    auto* network = dialog.findChild<QComboBox*>(QStringLiteral("networkBox"));
    network->setCurrentIndex(network->findData(QStringLiteral("nat")));
    WorkspaceActions* actions = m_window->workspaceActions();
    QSignalSpy finished(actions, &WorkspaceActions::operationFinished);
    actions->create(dialog.name(), dialog.settings());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kCommandTimeoutMs);
    QVERIFY(finished.first().at(0).value<OperationReport>().result.ok());
    auto created = Workspace::open(*m_connection, name);
    QVERIFY(created.ok());
    const WorkspaceSettings settings = created.value()->record().settings;
    QCOMPARE(settings.vcpus, 2);
    QCOMPARE(settings.memoryMiB, 384);
    QCOMPARE(settings.diskGiB, 5);
    QCOMPARE(settings.cpuSharePercent, 150);
    QCOMPARE(settings.network, WorkspaceNetwork::Nat);
    virDomainPtr domain = virDomainLookupByName(m_connection->handle(), qPrintable(workspaceDomainName(name)));
    QVERIFY(domain);
    char* xmlText = virDomainGetXMLDesc(domain, VIR_DOMAIN_XML_INACTIVE);
    const QString xml = QString::fromUtf8(xmlText);
    free(xmlText);
    virDomainFree(domain);
    QVERIFY2(xml.contains(QStringLiteral(">2</vcpu>")), qPrintable(xml));
    QVERIFY2(xml.contains(QStringLiteral("<memory unit='KiB'>393216</memory>")), qPrintable(xml));
    QVERIFY2(xml.contains(QStringLiteral("<global_quota>150000</global_quota>")), qPrintable(xml));
    QVERIFY2(xml.contains(QStringLiteral("<interface type='user'>")), qPrintable(xml));
    QVERIFY(created.value()->remove().ok());
    // The window selected the new workspace when it was created; the next cases use the
    // suite's workspace again.
    QVERIFY(m_window->workspaceManager()->refresh().ok());
    m_window->sessionList()->select(m_name);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->workspacePane()->workspace(), m_name, 10000);
}

void TestWorkspacePane::newWorkspaceStartsNowUnlessTurnedOff()
{
    WorkspaceActions* actions = m_window->workspaceActions();
    WorkspaceManager* manager = m_window->workspaceManager();
    const auto kindsLogged = [this](const QString& workspace) {
        LogFilter filter;
        filter.sandbox = workspace;
        QStringList kinds;
        for (const ActionRecord& row : m_window->commandLog()->rows(filter).value())
            kinds.prepend(actionKindName(row.kind)); // the log lists newest first
        return kinds;
    };
    for (const bool startNow : {false, true}) {
        NewWorkspaceDialog dialog;
        auto* box = dialog.findChild<QCheckBox*>(QStringLiteral("startNowBox"));
        QVERIFY(box->isChecked()); // on by default
        box->setChecked(startNow);
        const QString name = m_name + (startNow ? QStringLiteral("-now") : QStringLiteral("-off"));
        dialog.findChild<QLineEdit*>(QStringLiteral("nameEdit"))->setText(name);
        dialog.findChild<QSpinBox*>(QStringLiteral("memoryBox"))->setValue(256);
        QSignalSpy finished(actions, &WorkspaceActions::operationFinished);
        actions->create(dialog.name(), dialog.settings(), dialog.startNow());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), startNow ? 2 : 1, kCommandTimeoutMs);
        QStringList reports;
        for (const QList<QVariant>& signal : finished) {
            const auto report = signal.at(0).value<OperationReport>();
            QVERIFY2(report.result.ok(),
                     qPrintable(report.result.ok() ? QString() : report.result.error().message));
            QCOMPARE(report.workspace, name);
            reports << report.what;
        }
        if (startNow) {
            QCOMPARE(reports, (QStringList{QStringLiteral("Create"), QStringLiteral("Start")}));
            QTRY_COMPARE_WITH_TIMEOUT(manager->state(name), WorkspaceState::Running,
                                      kBootTimeoutMs);
            QCOMPARE(kindsLogged(name),
                     (QStringList{QStringLiteral("create"), QStringLiteral("start")}));
        } else {
            // Nothing else was begun for it: it is not busy, shut off, and its only row is the
            // create.
            QCOMPARE(reports, QStringList{QStringLiteral("Create")});
            QVERIFY(!actions->isBusy(name));
            QCOMPARE(manager->state(name), WorkspaceState::Stopped);
            QCOMPARE(kindsLogged(name), QStringList{QStringLiteral("create")});
        }
        auto created = Workspace::open(*m_connection, name);
        QVERIFY(created.ok());
        QVERIFY(created.value()->remove().ok());
    }
    QVERIFY(manager->refresh().ok());
    m_window->sessionList()->select(m_name);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->workspacePane()->workspace(), m_name, 10000);
}

void TestWorkspacePane::pauseAndResumeFromActions()
{
    WorkspaceActions* actions = m_window->workspaceActions();
    QVERIFY(actions->pauseAction()->isEnabled());
    actions->pauseAction()->trigger();
    waitForState(WorkspaceState::Paused, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(actions->resumeAction()->isEnabled(), 10000);
    QVERIFY(!actions->pauseAction()->isEnabled());
    QVERIFY(m_window->workspacePane()->commandLine()->isEnabled());
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-paused.png"));

    actions->resumeAction()->trigger();
    waitForState(WorkspaceState::Running, 60000);
    // The guest runs again and its clock was set: a command works and sees the host's time.
    const qint64 hostSeconds = QDateTime::currentSecsSinceEpoch();
    const auto outcome = runTyped(QStringLiteral("date +%s"));
    QCOMPARE(outcome.status.exitStatus, std::optional<int>(0));
    const QStringList lines = m_window->workspacePane()->output()->shownText().split(QLatin1Char('\n'));
    bool ok = false;
    const qint64 guestSeconds = lines.value(1).trimmed().toLongLong(&ok);
    QVERIFY2(ok, qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY2(std::abs(guestSeconds - hostSeconds) <= 5,
             qPrintable(QStringLiteral("guest %1, host %2").arg(guestSeconds).arg(hostSeconds)));
}

void TestWorkspacePane::checkpointAppearsInTimeline()
{
    auto workspace = m_window->workspaceManager()->workspace(m_name);
    QVERIFY(workspace);
    auto taken = workspace->checkpoint(QStringLiteral("before-change"), QStringLiteral("note.txt says kept"));
    QVERIFY2(taken.ok(), qPrintable(taken.ok() ? QString() : taken.error().message));
    WorkspacePane* pane = m_window->workspacePane();
    pane->reloadCheckpoints();
    QTRY_COMPARE_WITH_TIMEOUT(pane->checkpointList()->topLevelItemCount(), 1, 30000);
    const QTreeWidgetItem* item = pane->checkpointList()->topLevelItem(0);
    QVERIFY2(item->text(0).startsWith(QStringLiteral("before-change")), qPrintable(item->text(0)));
    QCOMPARE(item->text(3), QStringLiteral("note.txt says kept"));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-pane.png"));
}

void TestWorkspacePane::terminalTabRunsAShellAndRecordsIt()
{
    m_window->sessionList()->select(m_name);
    m_window->workspaceTabs()->setCurrentWidget(m_window->terminals());
    auto* tabs = qobject_cast<TerminalTabs*>(m_window->terminals()->page(m_name));
    QVERIFY(tabs);
    QTRY_COMPARE_WITH_TIMEOUT(tabs->count(), 1, 60000);
    TerminalTab* tab = tabs->tab(0);
    QTest::keyClicks(tab->terminal(), QStringLiteral("echo term-$((6*7)) $TERM"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("term-42 xterm-256color")),
                             30000);
    // New Terminal beside the tabs is whole: the tab bar does not squeeze it below its size.
    auto* corner = tabs->findChild<QToolButton*>(QStringLiteral("newTerminalCornerButton"));
    QVERIFY(corner && corner->isVisible());
    QCOMPARE(corner->text(), QStringLiteral("New Terminal"));
    QVERIFY2(corner->height() >= corner->sizeHint().height() &&
                 corner->width() >= corner->sizeHint().width(),
             qPrintable(QStringLiteral("%1x%2 < %3x%4")
                            .arg(corner->width())
                            .arg(corner->height())
                            .arg(corner->sizeHint().width())
                            .arg(corner->sizeHint().height())));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-terminal.png"));
    // A full-screen program: top draws on the alternate screen; q brings the shell back.
    QTest::keyClicks(tab->terminal(), QStringLiteral("top -d 1"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("load average")), 30000);
    QVERIFY(!tab->terminal()->screenText().contains(QStringLiteral("term-42")));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-top.png"));
    QTest::keyClicks(tab->terminal(), QStringLiteral("q"));
    QTRY_VERIFY_WITH_TIMEOUT(!tab->terminal()->screenText().contains(QStringLiteral("load average")), 30000);
    QTest::keyClicks(tab->terminal(), QStringLiteral("echo back-$((1+1))"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("\nback-2")), 30000);

    QFile recording(tab->recordingPath());
    QVERIFY2(recording.open(QIODevice::ReadOnly), qPrintable(tab->recordingPath()));
    const QByteArray cast = recording.readAll();
    QVERIFY(cast.startsWith("{"));
    QVERIFY2(cast.contains("term-42 xterm-256color"), cast.right(400).constData());

    // Closing the last tab leaves a way on: the pane offers New Terminal, and so does the
    // Workspace menu (Ctrl+Shift+T).
    auto* tabWidget = tabs->findChild<QTabWidget*>();
    QVERIFY(tabWidget);
    auto* close = qobject_cast<QAbstractButton*>(tabWidget->tabBar()->tabButton(0, QTabBar::RightSide));
    QVERIFY(close);
    close->click();
    QCOMPARE(tabs->count(), 0);
    auto* offer = tabs->findChild<QPushButton*>(QStringLiteral("newTerminalButton"));
    QVERIFY(offer && offer->isVisible());
    QAction* newTerminal = m_window->workspaceActions()->newTerminalAction();
    QCOMPARE(newTerminal->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    QVERIFY(newTerminal->isEnabled());
    newTerminal->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(tabs->count(), 1, 60000);
    QVERIFY(!offer->isVisible());
    TerminalTab* again = tabs->tab(0);
    QTest::keyClicks(again->terminal(), QStringLiteral("echo again-$((2+3))"));
    QTest::keyClick(again->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(again->terminal()->screenText().contains(QStringLiteral("\nagain-5")),
                             30000);
}

void TestWorkspacePane::filesTabListsTheWorkspaceFolder()
{
    m_window->workspaceTabs()->setCurrentWidget(m_window->files());
    auto* page = qobject_cast<WorkspaceFilesPage*>(m_window->files()->page(m_name));
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(page->tree(), 60000);
    FileTreeModel* model = page->tree()->model();
    QTRY_VERIFY_WITH_TIMEOUT(model->indexForPath(QByteArrayLiteral("/root/note.txt")).isValid(), 30000);
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-files.png"));
}

void TestWorkspacePane::consoleTabIsAttached()
{
    m_window->workspaceTabs()->setCurrentWidget(m_window->consoles());
    auto* console = qobject_cast<SerialConsoleView*>(m_window->consoles()->page(m_name));
    QVERIFY(console);
    QVERIFY2(console->isAttached(), qPrintable(console->statusText()));
}

void TestWorkspacePane::stopFromTheWindowSaysHowItWent()
{
    // Stop shuts the guest down cleanly and the status bar and the command log say so.
    WorkspaceActions* actions = m_window->workspaceActions();
    QSignalSpy finished(actions, &WorkspaceActions::operationFinished);
    QVERIFY(actions->stopAction()->isEnabled());
    actions->stopAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kCommandTimeoutMs);
    const auto report = finished.first().at(0).value<OperationReport>();
    QCOMPARE(report.what, QStringLiteral("Stop"));
    QVERIFY(report.result.ok());
    const QString notice = report.notice;
    QVERIFY2(notice.startsWith(QLatin1String("shut down cleanly in ")), qPrintable(notice));
    QCOMPARE(report.warning, false);
    QCOMPARE(m_window->statusBar()->currentMessage(),
             QStringLiteral("Stop of workspace '%1': %2").arg(m_name, notice));
    waitForState(WorkspaceState::Stopped, kCommandTimeoutMs);
    auto log = CommandLog::open(CommandLog::defaultPath());
    QVERIFY(log.ok());
    LogFilter filter;
    filter.sandbox = m_name;
    const auto rows = log.value()->rows(filter, 1);
    QVERIFY(rows.ok() && rows->size() == 1);
    QCOMPARE(rows->first().kind, ActionKind::Stop);
    QCOMPARE(rows->first().actor.kind, Actor::Kind::Person);
    QCOMPARE(rows->first().outcome, Outcome::Succeeded);
    QCOMPARE(log.value()->output(rows->first().id, OutputStream::Stdout).value(),
             (notice + QLatin1Char('\n')).toUtf8());
}

QTEST_MAIN(TestWorkspacePane)
#include "tst_workspacepane.moc"
