// The workspace pane and session list on a real workspace: the session list finds it with its
// state and the guest's own uptime, a command typed on the pane's command line runs in the
// guest with its output and exit status shown, the command line and output belong to their
// workspace, a long name keeps its column, a file written by one command is there for the next,
// Pause and Resume from the toolbar actions change the state libvirt reports, a checkpoint
// appears in the timeline, output from before a revert is marked, the Terminal tab runs a PTY
// shell (recorded as asciicast; closing the tab ends it in the guest) that a hibernate and wake
// keep with its screen and jobs, and that says plainly when a revert took its shell away; the
// Files tab lists /root over SFTP and the Serial Console tab is attached and lets the window's
// Ctrl+Shift shortcuts through; Stop shuts it down cleanly and says so. Two more workspaces are
// only defined.
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
#include "workspace/CheckpointDialog.h"
#include "workspace/NewWorkspaceDialog.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspacePane.h"
#include "workspace/WorkspaceSettingsDialog.h"
#include "workspace/WorkspaceUptime.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
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
    void uptimeOfTheReattachedWorkspaceIsTheGuests();
    void commandRunsWithOutputAndExitStatus();
    void commandLineBelongsToItsWorkspace();
    void sessionListKeepsLongNamesReadable();
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
    void terminalReconnectsAfterHibernateAndWake();
    void terminalSaysWhenItsShellIsGone();
    void outputFromBeforeARevertIsMarked();
    void stopFromTheWindowSaysHowItWent();
    void filesTabSaysTheWorkspaceIsStopped();

private:
    /// Runs `command` through the pane's command line; returns the outcome.
    WorkspaceCommandOutcome runTyped(const QString& command);
    void waitForState(WorkspaceState state, int timeoutMs);
    SessionListModel* sessionModel() const;
    /// The guest's /proc/uptime in ms, read over the workspace's own session; -1 on failure.
    qint64 guestUptimeMs();
    /// The session list's uptime of the workspace in ms; -1 for none.
    qint64 listedUptimeMs() const;

    QString m_name;
    QString m_otherName; ///< a second workspace, defined only
    QString m_longName;  ///< a third, with the longest name a workspace can have
    std::unique_ptr<HypervisorConnection> m_connection;
    std::unique_ptr<Workbench> m_workbench; ///< outlives the window, as in the program
    std::unique_ptr<MainWindow> m_window;
    test::TemporarySettings m_settings; ///< the windows' layouts and choices, never the person's
};

void TestWorkspacePane::initTestCase()
{
    m_name = QStringLiteral("gui-test-%1").arg(QCoreApplication::applicationPid());
    m_otherName = m_name + QStringLiteral("-b");
    m_longName = (m_name + QStringLiteral("-with-the-longest-name-there-is")).left(40);
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
        for (const QString& name : {m_name, m_otherName, m_longName}) {
            if (auto workspace = Workspace::open(*m_connection, name); workspace.ok())
                QVERIFY(workspace.value()->remove().ok());
        }
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

SessionListModel* TestWorkspacePane::sessionModel() const
{
    return static_cast<SessionListModel*>(m_window->sessionList()->view()->model());
}

qint64 TestWorkspacePane::guestUptimeMs()
{
    const auto workspace = m_window->workspaceManager()->workspace(m_name);
    if (!workspace)
        return -1;
    QByteArray out;
    ExecRequest request;
    request.command = "cat /proc/uptime";
    request.onStdout = [&out](QByteArrayView bytes) { out.append(bytes); };
    const auto status =
        workspace->exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(60));
    const auto uptime = parseProcUptime(out);
    return status.ok() && uptime ? qint64(uptime->count()) : -1;
}

qint64 TestWorkspacePane::listedUptimeMs() const
{
    const QModelIndex cell =
        sessionModel()->index(sessionModel()->rowOf(m_name), SessionListModel::UptimeColumn);
    const QVariant ms = cell.data(SessionListModel::kUptimeMsRole);
    return ms.isValid() ? ms.toLongLong() : -1;
}

void TestWorkspacePane::sessionListShowsWorkspaceAndState()
{
    const auto* model = static_cast<SessionListModel*>(m_window->sessionList()->view()->model());
    QTRY_VERIFY_WITH_TIMEOUT(model->rowOf(m_name) > 0, 10000);
    QCOMPARE(
        model->index(SessionListModel::kRunRow, SessionListModel::NameColumn).data().toString(),
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

void TestWorkspacePane::uptimeOfTheReattachedWorkspaceIsTheGuests()
{
    // The workspace was booting before the window opened: the list found it and asked the guest.
    const auto cell = [this] {
        return sessionModel()->index(sessionModel()->rowOf(m_name), SessionListModel::UptimeColumn);
    };
    QTRY_VERIFY_WITH_TIMEOUT(cell().data(SessionListModel::kUptimeFromGuestRole).toBool(), 60000);
    const qint64 guest = guestUptimeMs();
    const qint64 listed = listedUptimeMs();
    QVERIFY(guest > 0);
    QVERIFY2(std::abs(listed - guest) <= 1000,
             qPrintable(QStringLiteral("listed %1 ms, guest %2 ms").arg(listed).arg(guest)));
    const QString text = cell().data().toString();
    QVERIFY2(!text.startsWith(QStringLiteral("≥")), qPrintable(text));
    QCOMPARE(text, SessionListModel::uptimeText(listedUptimeMs() / 1000));
    QCOMPARE(cell().data(Qt::ToolTipRole).toString(),
             QStringLiteral("The guest's own uptime (its /proc/uptime)"));
}

void TestWorkspacePane::commandRunsWithOutputAndExitStatus()
{
    m_window->sessionList()->select(m_name);
    const auto outcome =
        runTyped(QStringLiteral("pwd; echo hello-$((6*7)); echo oops >&2; exit 3"));
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

void TestWorkspacePane::commandLineBelongsToItsWorkspace()
{
    WorkspaceSettings settings;
    settings.memoryMiB = 256;
    for (const QString& name : {m_otherName, m_longName}) {
        auto created = Workspace::create(*m_connection, name, settings);
        QVERIFY2(created.ok(), qPrintable(created.ok() ? QString() : created.error().message));
    }
    QVERIFY(m_window->workspaceManager()->refresh().ok());
    QTRY_VERIFY_WITH_TIMEOUT(sessionModel()->rowOf(m_longName) > 0, 10000);

    WorkspacePane* pane = m_window->workspacePane();
    m_window->sessionList()->select(m_name);
    QCOMPARE(runTyped(QStringLiteral("echo output-of-$((40+2))-in-a")).status.exitStatus,
             std::optional<int>(0));
    pane->commandLine()->clear();
    QTest::keyClicks(pane->commandLine(), QStringLiteral("uname -r"));

    // The other workspace has its own (empty) line and output, not the last command's.
    m_window->sessionList()->select(m_otherName);
    QCOMPARE(pane->workspace(), m_otherName);
    QCOMPARE(pane->commandLine()->text(), QString());
    QCOMPARE(pane->output()->shownText(), QString());
    QCOMPARE(pane->output()->placeholderText(),
             QStringLiteral("Output of the command appears here."));
    QTest::keyClicks(pane->commandLine(), QStringLiteral("ls /tmp"));

    m_window->sessionList()->select(m_name);
    QCOMPARE(pane->commandLine()->text(), QStringLiteral("uname -r"));
    QVERIFY2(pane->output()->shownText().contains(QStringLiteral("output-of-42-in-a\n")),
             qPrintable(pane->output()->shownText()));
    m_window->sessionList()->select(m_otherName);
    QCOMPARE(pane->commandLine()->text(), QStringLiteral("ls /tmp"));
    QCOMPARE(pane->output()->shownText(), QString());
    m_window->sessionList()->select(m_name);
}

void TestWorkspacePane::sessionListKeepsLongNamesReadable()
{
    QTreeView* view = m_window->sessionList()->view();
    SessionListModel* model = sessionModel();
    const int row = model->rowOf(m_longName);
    QVERIFY(row > 0);
    QCOMPARE(model->index(row, SessionListModel::NameColumn).data().toString(), m_longName);
    QCOMPARE(model->index(row, SessionListModel::NameColumn).data(Qt::ToolTipRole).toString(),
             m_longName);
    // The name column is as wide as the longest name needs, and the state is still shown.
    QHeaderView* header = view->header();
    const int needed =
        static_cast<QAbstractItemView*>(view)->sizeHintForColumn(SessionListModel::NameColumn);
    QVERIFY2(header->sectionSize(SessionListModel::NameColumn) >= needed,
             qPrintable(QStringLiteral("%1 < %2")
                            .arg(header->sectionSize(SessionListModel::NameColumn))
                            .arg(needed)));
    QVERIFY(!view->isColumnHidden(SessionListModel::StateColumn));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty()) {
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/session-list-window.png"));
        m_window->sessionList()->grab().save(QString::fromLocal8Bit(dir) +
                                             QStringLiteral("/session-list.png"));
    }

    // Room given to the list brings the columns that gave way back.
    auto* sessions = m_window->findChild<QDockWidget*>(QStringLiteral("sessionDock"));
    QVERIFY(sessions);
    m_window->resizeDocks({sessions}, {560}, Qt::Horizontal);
    QTRY_VERIFY(!view->isColumnHidden(SessionListModel::UptimeColumn));
    QVERIFY(!view->isColumnHidden(SessionListModel::KindColumn));
    QVERIFY(header->sectionSize(SessionListModel::NameColumn) >= needed);
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/session-list-wide.png"));

    // The columns stay where they are while the uptime grows.
    QList<int> widths;
    for (int column = 0; column < SessionListModel::ColumnCount; ++column)
        widths << header->sectionSize(column);
    const auto uptime = [&] {
        return model->index(model->rowOf(m_name), SessionListModel::UptimeColumn).data().toString();
    };
    const QString before = uptime();
    QTRY_VERIFY_WITH_TIMEOUT(uptime() != before, 5000);
    for (int column = 0; column < SessionListModel::ColumnCount; ++column)
        QCOMPARE(header->sectionSize(column), widths[column]);
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
    QVERIFY2(shown.contains(note + QStringLiteral(" · timed out and killed · ")),
             qPrintable(shown));
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
    virDomainPtr domain =
        virDomainLookupByName(m_connection->handle(), qPrintable(workspaceDomainName(name)));
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
        const auto rows = m_window->commandLog()->rows(filter); // kept: the loop reads into it
        for (const ActionRecord& row : rows.value())
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
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/workspace-paused.png"));

    actions->resumeAction()->trigger();
    waitForState(WorkspaceState::Running, 60000);
    // The guest runs again and its clock was set: a command works and sees the host's time.
    const qint64 hostSeconds = QDateTime::currentSecsSinceEpoch();
    const auto outcome = runTyped(QStringLiteral("date +%s"));
    QCOMPARE(outcome.status.exitStatus, std::optional<int>(0));
    const QStringList lines =
        m_window->workspacePane()->output()->shownText().split(QLatin1Char('\n'));
    bool ok = false;
    const qint64 guestSeconds = lines.value(1).trimmed().toLongLong(&ok);
    QVERIFY2(ok, qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY2(std::abs(guestSeconds - hostSeconds) <= 5,
             qPrintable(QStringLiteral("guest %1, host %2").arg(guestSeconds).arg(hostSeconds)));
}

void TestWorkspacePane::checkpointAppearsInTimeline()
{
    // Checkpoint… asks for name and note in one dialog; Enter in the note confirms.
    WorkspaceActions* actions = m_window->workspaceActions();
    QSignalSpy finished(actions, &WorkspaceActions::operationFinished);
    QVERIFY(actions->checkpointAction()->isEnabled());
    actions->checkpointAction()->trigger();
    CheckpointDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<CheckpointDialog*>()) && dialog->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QCOMPARE(dialog->windowTitle(), QStringLiteral("New Checkpoint"));
    QVERIFY2(
        QRegularExpression(QStringLiteral("^cp-\\d{8}-\\d{6}$")).match(dialog->name()).hasMatch(),
        qPrintable(dialog->name()));
    QPushButton* ok = dialog->buttons()->button(QDialogButtonBox::Ok);
    dialog->nameEdit()->setText(QStringLiteral("before change"));
    QCOMPARE(dialog->problem(), QStringLiteral("'before change' is not a checkpoint name: use 1 to "
                                               "64 of A-Z, a-z, 0-9, '.', '_' and '-'"));
    QVERIFY(!ok->isEnabled());
    dialog->nameEdit()->setText(QStringLiteral("before-change"));
    QVERIFY(ok->isEnabled());
    QVERIFY(dialog->problem().isEmpty());
    QTest::keyClicks(dialog->noteEdit(), QStringLiteral("note.txt says kept"));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        dialog->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/checkpoint-dialog.png"));
    QTest::keyClick(dialog->noteEdit(), Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kCommandTimeoutMs);
    // The offscreen platform does not give the window back its activation after the dialog.
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    const auto report = finished.first().at(0).value<OperationReport>();
    QCOMPARE(report.what, QStringLiteral("Checkpoint"));
    QVERIFY2(report.result.ok(),
             qPrintable(report.result.ok() ? QString() : report.result.error().message));

    WorkspacePane* pane = m_window->workspacePane();
    QTRY_COMPARE_WITH_TIMEOUT(pane->checkpointList()->topLevelItemCount(), 1, 30000);
    const QTreeWidgetItem* item = pane->checkpointList()->topLevelItem(0);
    QVERIFY2(item->text(0).startsWith(QStringLiteral("before-change")), qPrintable(item->text(0)));
    QCOMPARE(item->text(3), QStringLiteral("note.txt says kept"));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-pane.png"));
}

void TestWorkspacePane::outputFromBeforeARevertIsMarked()
{
    WorkspacePane* pane = m_window->workspacePane();
    m_window->sessionList()->select(m_name);
    // Back from the terminal tabs to the pane, in the active window (the offscreen platform
    // does not give the window back its activation after a dialog).
    m_window->workspaceTabs()->setCurrentWidget(pane);
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QCOMPARE(runTyped(QStringLiteral("echo later > after.txt; echo before-revert-$((3*3))"))
                 .status.exitStatus,
             std::optional<int>(0));
    QVERIFY(pane->output()->shownText().contains(QStringLiteral("before-revert-9\n")));

    pane->checkpointList()->setCurrentItem(pane->checkpointList()->topLevelItem(0));
    auto* revert = pane->findChild<QPushButton*>(QStringLiteral("revertButton"));
    QVERIFY(revert && revert->isEnabled());
    // Revert asks first; the answer is Yes.
    QTimer answer;
    connect(&answer, &QTimer::timeout, this, [&answer] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            answer.stop();
            box->button(QMessageBox::Yes)->click();
        }
    });
    answer.start(50);
    QSignalSpy finished(m_window->workspaceActions(), &WorkspaceActions::operationFinished);
    revert->click();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kCommandTimeoutMs);
    const auto report = finished.first().at(0).value<OperationReport>();
    QVERIFY2(report.result.ok(),
             qPrintable(report.result.ok() ? QString() : report.result.error().message));

    // The earlier output stays, under a note that says it is from before the revert.
    const QString shown = pane->output()->shownText();
    static const QRegularExpression note(
        QStringLiteral("before-revert-9\n(.*\n)?── reverted to checkpoint 'before-change' at "
                       "\\d\\d:\\d\\d:\\d\\d UTC: "
                       "the output above is from before the revert ──"),
        QRegularExpression::DotMatchesEverythingOption);
    QVERIFY2(note.match(shown).hasMatch(), qPrintable(shown));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/workspace-reverted.png"));
    waitForState(WorkspaceState::Running, 60000);
    // The question took the window's activation; the person is back in it.
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    const auto after = runTyped(QStringLiteral("test -e after.txt"));
    QCOMPARE(after.status.exitStatus, std::optional<int>(1));
    QVERIFY(!pane->output()->shownText().contains(QStringLiteral("reverted to checkpoint")));

    // The revert turned the guest's clock back; the list asked it again.
    qint64 listed = -1;
    qint64 guest = -1;
    QTRY_VERIFY2_WITH_TIMEOUT(
        (guest = guestUptimeMs(), listed = listedUptimeMs(), std::abs(listed - guest) <= 1000),
        qPrintable(QStringLiteral("listed %1 ms, guest %2 ms").arg(listed).arg(guest)), 30000);
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
    QTRY_VERIFY_WITH_TIMEOUT(
        tab->terminal()->screenText().contains(QStringLiteral("term-42 xterm-256color")), 30000);
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
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/workspace-terminal.png"));
    // A full-screen program: top draws on the alternate screen; q brings the shell back.
    QTest::keyClicks(tab->terminal(), QStringLiteral("top -d 1"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("load average")),
                             30000);
    QVERIFY(!tab->terminal()->screenText().contains(QStringLiteral("term-42")));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-top.png"));
    QTest::keyClicks(tab->terminal(), QStringLiteral("q"));
    QTRY_VERIFY_WITH_TIMEOUT(
        !tab->terminal()->screenText().contains(QStringLiteral("load average")), 30000);
    QTest::keyClicks(tab->terminal(), QStringLiteral("echo back-$((1+1))"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("\nback-2")),
                             30000);

    QFile recording(tab->recordingPath());
    QVERIFY2(recording.open(QIODevice::ReadOnly), qPrintable(tab->recordingPath()));
    const QByteArray cast = recording.readAll();
    QVERIFY(cast.startsWith("{"));
    QVERIFY2(cast.contains("term-42 xterm-256color"), cast.right(400).constData());

    // Closing the last tab leaves a way on: the pane offers New Terminal, and so does the
    // Workspace menu (Ctrl+Shift+T).
    auto* tabWidget = tabs->findChild<QTabWidget*>();
    QVERIFY(tabWidget);
    auto* close =
        qobject_cast<QAbstractButton*>(tabWidget->tabBar()->tabButton(0, QTabBar::RightSide));
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
    // Closing the first tab ended its shell in the guest: only the new tab's is left.
    auto workspace = m_window->workspaceManager()->workspace(m_name);
    QVERIFY(workspace);
    const auto shellsInGuest = [&workspace] {
        QByteArray listed;
        ExecRequest request;
        request.command = "ls /run/sbw-terminals | wc -l";
        request.onStdout = [&listed](QByteArrayView bytes) { listed.append(bytes); };
        const auto status =
            workspace->exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(60));
        return status ? listed.trimmed() : status.error().message.toUtf8();
    };
    QTRY_COMPARE_WITH_TIMEOUT(shellsInGuest(), QByteArray("1"), 30000);
}

void TestWorkspacePane::filesTabListsTheWorkspaceFolder()
{
    m_window->workspaceTabs()->setCurrentWidget(m_window->files());
    auto* page = qobject_cast<WorkspaceFilesPage*>(m_window->files()->page(m_name));
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(page->tree(), 60000);
    FileTreeModel* model = page->tree()->model();
    QTRY_VERIFY_WITH_TIMEOUT(model->indexForPath(QByteArrayLiteral("/root/note.txt")).isValid(),
                             30000);
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/workspace-files.png"));
}

void TestWorkspacePane::consoleTabIsAttached()
{
    m_window->workspaceTabs()->setCurrentWidget(m_window->consoles());
    auto* console = qobject_cast<SerialConsoleView*>(m_window->consoles()->page(m_name));
    QVERIFY(console);
    QVERIFY2(console->isAttached(), qPrintable(console->statusText()));
    // Opened long after the guest booted, and by a window that found the workspace running,
    // it still shows this boot's console output from its start, once, then the live console.
    QCOMPARE(console->statusText(),
             QStringLiteral("console attached to %1").arg(workspaceDomainName(m_name)));
    const auto consoleText = [console] {
        const TerminalWidget* terminal = console->terminal();
        QStringList lines;
        for (int i = 0; i < terminal->scrollbackCount(); ++i)
            lines.append(terminal->scrollbackLine(i));
        lines.append(terminal->screenText());
        return lines.join(QLatin1Char('\n'));
    };
    QTRY_VERIFY2_WITH_TIMEOUT(consoleText().contains(QStringLiteral("sbw-guest: ready")),
                              qPrintable(consoleText()), 10000);
    QCOMPARE(consoleText().count(QStringLiteral("sbw-guest: ready")), 1);
    QCOMPARE(consoleText().count(QStringLiteral("Linux version ")), 1);
    QVERIFY(consoleText().indexOf(QStringLiteral("Linux version ")) <
            consoleText().indexOf(QStringLiteral("sbw-guest: ready")));
    QVERIFY(consoleText().contains(QStringLiteral("sbw-guest: press Enter for a root shell")));
    // Then the live console: Enter starts the console's root shell, which answers.
    QTest::keyClick(console->terminal(), Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(consoleText().contains(QStringLiteral("root@")),
                              qPrintable(consoleText()), 60000);
    QTest::keyClicks(console->terminal(), QStringLiteral("echo live-$((6*7))"));
    QTest::keyClick(console->terminal(), Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(consoleText().contains(QStringLiteral("\nlive-42")),
                              qPrintable(consoleText()), 30000);
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/serial-console.png"));
    // The window's Ctrl+Shift shortcuts reach the window while the console has the focus
    // (Ctrl+Shift+L shows and hides the command log); other keys go to the guest.
    auto* logDock = m_window->findChild<QDockWidget*>(QStringLiteral("commandLogDock"));
    QVERIFY(logDock);
    const bool logShown = logDock->isVisible();
    console->terminal()->setFocus();
    QTRY_VERIFY(console->terminal()->hasFocus());
    QTest::keyClick(console->terminal(), Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(logDock->isVisible(), !logShown);
    QTest::keyClick(console->terminal(), Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(logDock->isVisible(), logShown);
    QSignalSpy typed(console->terminal(), &TerminalWidget::inputReady);
    QTest::keyClick(console->terminal(), Qt::Key_O, Qt::ControlModifier);
    QCOMPARE(typed.size(), 1);
    QCOMPARE(typed.first().first().toByteArray(), QByteArray("\x0f"));
}

void TestWorkspacePane::terminalReconnectsAfterHibernateAndWake()
{
    m_window->workspaceTabs()->setCurrentWidget(m_window->terminals());
    auto* tabs = qobject_cast<TerminalTabs*>(m_window->terminals()->page(m_name));
    QVERIFY(tabs);
    QCOMPARE(tabs->count(), 1);
    TerminalTab* tab = tabs->tab(0);
    QTest::keyClicks(tab->terminal(), QStringLiteral("sleep 4242 & echo before-$((3*3))"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("\nbefore-9")),
                             30000);

    WorkspaceActions* actions = m_window->workspaceActions();
    QTRY_VERIFY_WITH_TIMEOUT(actions->hibernateAction()->isEnabled(), 10000);
    actions->hibernateAction()->trigger();
    waitForState(WorkspaceState::Hibernated, kCommandTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(tab->isDisconnected(), 30000);
    QVERIFY2(tab->terminal()->screenText().contains(QStringLiteral("[disconnected: ")),
             qPrintable(tab->terminal()->screenText()));
    // It tried at once and says why it cannot yet.
    QTRY_VERIFY_WITH_TIMEOUT(
        tab->terminal()->screenText().contains(QStringLiteral("[cannot reconnect yet: ")), 30000);
    auto* tabWidget = tabs->findChild<QTabWidget*>();
    QVERIFY(tabWidget);
    QVERIFY2(tabWidget->tabText(0).endsWith(QStringLiteral("(disconnected)")),
             qPrintable(tabWidget->tabText(0)));

    QTRY_VERIFY_WITH_TIMEOUT(actions->wakeAction()->isEnabled(), 10000);
    actions->wakeAction()->trigger();
    waitForState(WorkspaceState::Running, kBootTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        tab->terminal()->screenText().contains(QStringLiteral("[reconnected to the same shell]")),
        kCommandTimeoutMs);
    QVERIFY(!tab->isDisconnected());
    QVERIFY(!tabWidget->tabText(0).contains(QStringLiteral("disconnected")));
    // The screen kept the shell's earlier output, and the job started before is still there.
    QVERIFY2(tab->terminal()->screenText().contains(QStringLiteral("\nbefore-9")),
             qPrintable(tab->terminal()->screenText()));
    QTest::keyClicks(tab->terminal(), QStringLiteral("jobs; echo after-$((5*5))"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("\nafter-25")),
                             30000);
    static const QRegularExpression job(QStringLiteral("\\n\\[1\\]\\+ +Running +sleep 4242 &"));
    const QString screen = tab->terminal()->screenText();
    QVERIFY2(screen.contains(job), qPrintable(screen));
    QVERIFY2(screen.contains(QStringLiteral("\nbefore-9")), qPrintable(screen));
    QVERIFY2(screen.contains(QStringLiteral("[reconnected to the same shell]")),
             qPrintable(screen));
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/workspace-terminal-reconnected.png"));
}

void TestWorkspacePane::terminalSaysWhenItsShellIsGone()
{
    // The checkpoint was taken before the tab's shell started: after a revert to it the shell
    // does not exist, and the tab says so and gives a new one.
    auto* tabs = qobject_cast<TerminalTabs*>(m_window->terminals()->page(m_name));
    QVERIFY(tabs);
    TerminalTab* tab = tabs->tab(0);
    auto workspace = m_window->workspaceManager()->workspace(m_name);
    QVERIFY(workspace);
    auto reverted = workspace->revert(QStringLiteral("before-change"));
    QVERIFY2(reverted.ok(), qPrintable(reverted.ok() ? QString() : reverted.error().message));
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(
                                 QStringLiteral("[this tab's shell no longer exists in the guest")),
                             kCommandTimeoutMs);
    QVERIFY(!tab->isDisconnected());
    QVERIFY(!tab->hasEnded());
    // A new shell in the checkpoint's guest, where the sleep never ran.
    QTest::keyClicks(tab->terminal(), QStringLiteral("echo fresh-$(pgrep -cx sleep)"));
    QTest::keyClick(tab->terminal(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(tab->terminal()->screenText().contains(QStringLiteral("\nfresh-0")),
                             60000);
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/workspace-terminal-new-shell.png"));
}

void TestWorkspacePane::filesTabSaysTheWorkspaceIsStopped()
{
    // The tree listed while the workspace ran is gone: nothing stale stays on show.
    auto* page = qobject_cast<WorkspaceFilesPage*>(m_window->files()->page(m_name));
    QVERIFY(page);
    QVERIFY(!page->tree());
    QCOMPARE(page->statusText(),
             QStringLiteral("The workspace is stopped; its files show here while it runs."));
    m_window->workspaceTabs()->setCurrentWidget(m_window->files());
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        m_window->grab().save(QString::fromLocal8Bit(dir) +
                              QStringLiteral("/workspace-files-stopped.png"));
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
