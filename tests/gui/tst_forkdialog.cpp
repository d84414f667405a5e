// Workspace ▸ Fork… in the main window on a real running workspace that has a file, a
// background process, a checkpoint and a policy rule of its own: the dialog suggests a name,
// checks the one typed, offers the checkpoint and the memory; the fork runs off the GUI thread
// with a busy bar; the fork is then in the session list with its origin, running, with the file
// and the process still going, the source's rule is the fork's too (in the gate), the log has a
// person's Fork row on the source, and the source is as it was. Saves the window with the fork
// selected as SBW_SCREENSHOT_DIR/fork-session-list.png and the dialog as fork-dialog.png.
// Needs a running libvirt daemon and the guest image (packaging/guest/build-image.sh minimal).

#include "CommandLogRows.h"
#include "TemporarySettings.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "approval/Policy.h"
#include "approval/PolicyGate.h"
#include "hypervisor/HypervisorConnection.h"
#include "window/MainWindow.h"
#include "window/SessionListModel.h"
#include "window/SessionListPane.h"
#include "workbench/Workbench.h"
#include "workspace/ForkDialog.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

using namespace sbw;

namespace {

constexpr int kForkTimeoutMs = 300 * 1000;
/// Counts seconds into /root/ticks until it is killed; prints its process id.
const QString kTicker =
    QStringLiteral("setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > /root/ticks; "
                   "sleep 1; done' >/dev/null 2>&1 </dev/null & echo $!");

} // namespace

class TestForkDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void suggestedNamesAreFreeAndFit();
    void dialogChecksTheNameAndOffersCheckpoints();
    void forkOfRunningWorkspaceKeepsItsProcesses();

private:
    ForkDialog* openDialog();
    QByteArray run(const QString& workspace, const QString& command);
    /// Whether /root/ticks of `workspace` grows: the ticker runs there.
    bool ticks(const QString& workspace);
    SessionListModel* sessionModel() const;

    QTemporaryDir m_data; ///< XDG_DATA_HOME: the policy file, command log and records of this test
    test::TemporarySettings m_settings;
    QString m_source;
    QString m_fork;
    QByteArray m_tickerPid;
    std::unique_ptr<HypervisorConnection> m_connection;
    std::unique_ptr<Workbench> m_workbench;
    std::unique_ptr<MainWindow> m_window;
};

void TestForkDialog::initTestCase()
{
    qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
    m_source = QStringLiteral("gui-fork-%1").arg(QCoreApplication::applicationPid());
    m_fork = m_source + QStringLiteral("-fork");
    m_connection = std::make_unique<HypervisorConnection>(test::guestUri());
    QVERIFY(m_connection->ensureOpen().ok());
    WorkspaceSettings settings;
    settings.memoryMiB = 256;
    auto created = Workspace::create(*m_connection, m_source, settings);
    QVERIFY2(created.ok(), qPrintable(created.ok() ? QString() : created.error().message));
    QVERIFY(created.value()->start().ok());
    QCOMPARE(
        test::shellOutput(*created.value(), QStringLiteral("printf 'kept\\n' > /root/keep.txt")),
        QByteArray());
    // A checkpoint needs the guest agent, which comes up after sshd.
    QTRY_COMPARE_WITH_TIMEOUT(created.value()->state(), WorkspaceState::Running, 120000);
    auto checkpoint = created.value()->checkpoint(QStringLiteral("c1"), QString());
    QVERIFY2(checkpoint.ok(), qPrintable(checkpoint.ok() ? QString() : checkpoint.error().message));
    m_tickerPid = test::shellOutput(*created.value(), kTicker).trimmed();
    QVERIFY(!m_tickerPid.isEmpty());
    created.value()->closeSession(); // the window's Workspace opens its own

    Policy policy;
    policy.workspaceRules[m_source] = {
        PolicyRule{{ActionKind::Exec}, QStringLiteral("make *"), PolicyDecision::Allow}};
    QVERIFY(policy.save(Policy::defaultPath()).ok());

    m_workbench = std::make_unique<Workbench>(m_connection.get());
    m_window = std::make_unique<MainWindow>(m_workbench.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QTRY_VERIFY_WITH_TIMEOUT(sessionModel()->rowOf(m_source) > 0, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->workspaceManager()->state(m_source),
                              WorkspaceState::Running, 60000);
    m_window->sessionList()->select(m_source);
}

void TestForkDialog::cleanupTestCase()
{
    m_window.reset();
    m_workbench.reset();
    if (!m_connection)
        return;
    for (const QString& name : {m_fork, m_source})
        if (auto workspace = Workspace::open(*m_connection, name); workspace.ok())
            QVERIFY(workspace.value()->remove().ok());
}

SessionListModel* TestForkDialog::sessionModel() const
{
    return static_cast<SessionListModel*>(m_window->sessionList()->view()->model());
}

QByteArray TestForkDialog::run(const QString& workspace, const QString& command)
{
    const auto opened = m_window->workspaceManager()->workspace(workspace);
    return opened ? test::shellOutput(*opened, command)
                  : QByteArray("no workspace ") + workspace.toUtf8();
}

bool TestForkDialog::ticks(const QString& workspace)
{
    bool ok = false;
    const int before = run(workspace, QStringLiteral("cat /root/ticks")).trimmed().toInt(&ok);
    if (!ok)
        return false;
    QTest::qWait(2500);
    return run(workspace, QStringLiteral("cat /root/ticks")).trimmed().toInt() > before;
}

ForkDialog* TestForkDialog::openDialog()
{
    QAction* fork = m_window->workspaceActions()->forkAction();
    if (!fork->isEnabled())
        return nullptr;
    fork->trigger();
    ForkDialog* dialog = nullptr;
    if (!QTest::qWaitFor(
            [&] { return (dialog = m_window->findChild<ForkDialog*>()) && dialog->isVisible(); }))
        return nullptr;
    return dialog;
}

void TestForkDialog::suggestedNamesAreFreeAndFit()
{
    QCOMPARE(suggestForkName(QStringLiteral("web"), {}), QStringLiteral("web-fork"));
    QCOMPARE(suggestForkName(QStringLiteral("web"),
                             {QStringLiteral("web-fork"), QStringLiteral("web-fork-2")}),
             QStringLiteral("web-fork-3"));
    // A 40-character source is cut, without a '-' left before the suffix.
    const QString longest = QStringLiteral("a234567890-234567890123456789012345-7890");
    QCOMPARE(suggestForkName(longest, {}),
             QStringLiteral("a234567890-234567890123456789012345-fork"));
    QCOMPARE(suggestForkName(longest, {QStringLiteral("a234567890-234567890123456789012345-fork")}),
             QStringLiteral("a234567890-2345678901234567890123-fork-2"));
}

void TestForkDialog::dialogChecksTheNameAndOffersCheckpoints()
{
    ForkDialog* dialog = openDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Fork Workspace"));
    QCOMPARE(dialog->name(), m_fork);
    QPushButton* ok = dialog->buttons()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());

    dialog->nameEdit()->setText(QStringLiteral("Web Fork"));
    QVERIFY(!ok->isEnabled());
    QVERIFY2(dialog->problem().contains(QStringLiteral("Web Fork")), qPrintable(dialog->problem()));
    dialog->nameEdit()->setText(m_source);
    QVERIFY(!ok->isEnabled());
    QCOMPARE(dialog->problem(),
             QStringLiteral("a workspace named '%1' already exists").arg(m_source));

    // The checkpoint arrives from a worker; it brings its own memory.
    QTRY_COMPARE_WITH_TIMEOUT(dialog->fromBox()->count(), 2, 30000);
    QCOMPARE(dialog->fromBox()->itemText(0), QStringLiteral("the workspace as it is now"));
    QVERIFY2(dialog->fromBox()->itemText(1).startsWith(QStringLiteral("checkpoint c1, taken ")),
             qPrintable(dialog->fromBox()->itemText(1)));
    QVERIFY(dialog->memoryBox()->isVisible());
    QVERIFY(dialog->memoryBox()->isChecked());
    dialog->fromBox()->setCurrentIndex(1);
    QVERIFY(!dialog->memoryBox()->isEnabled());
    QCOMPARE(dialog->options().checkpoint, QStringLiteral("c1"));
    QVERIFY(!dialog->options().memory);
    QVERIFY2(dialog->outcome().startsWith(
                 QStringLiteral("The fork starts in the state of checkpoint 'c1'")),
             qPrintable(dialog->outcome()));
    dialog->fromBox()->setCurrentIndex(0);
    QVERIFY(dialog->memoryBox()->isEnabled());
    QVERIFY(dialog->options().memory);
    QVERIFY2(dialog->outcome().contains(QStringLiteral("its processes keep running in the fork")),
             qPrintable(dialog->outcome()));
    dialog->memoryBox()->setChecked(false);
    QVERIFY(!dialog->options().memory);
    QVERIFY2(dialog->outcome().contains(QStringLiteral("is left stopped")),
             qPrintable(dialog->outcome()));
    dialog->reject();
}

void TestForkDialog::forkOfRunningWorkspaceKeepsItsProcesses()
{
    WorkspaceActions* actions = m_window->workspaceActions();
    QSignalSpy finished(actions, &WorkspaceActions::operationFinished);
    ForkDialog* dialog = openDialog();
    QVERIFY(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(dialog->fromBox()->count(), 2, 30000);
    QCOMPARE(dialog->name(), m_fork);
    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        dialog->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/fork-dialog.png"));
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();

    // Busy while it runs: a bar and a line in the status bar, the source's actions off.
    auto* busy = m_window->findChild<QProgressBar*>(QStringLiteral("forkBusyBar"));
    QVERIFY(busy);
    QVERIFY(busy->isVisible());
    QCOMPARE(m_window->statusBar()->currentMessage(),
             QStringLiteral("Forking workspace '%1' into '%2'…").arg(m_source, m_fork));
    QVERIFY(!actions->forkAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kForkTimeoutMs);
    const auto report = finished.first().at(0).value<OperationReport>();
    QVERIFY2(report.result.ok(),
             qPrintable(report.result.ok() ? QString() : report.result.error().message));
    QCOMPARE(report.made, m_fork);
    QVERIFY(!busy->isVisible());
    m_window->activateWindow(); // the offscreen platform does not give it back after a dialog

    // The fork is listed with its origin, selected and running.
    SessionListModel* model = sessionModel();
    const int row = model->rowOf(m_fork);
    QVERIFY(row > 0);
    QCOMPARE(model->index(row, SessionListModel::NameColumn)
                 .data(SessionListModel::kOriginRole)
                 .toString(),
             QStringLiteral("fork of %1").arg(m_source));
    QCOMPARE(model->index(row, SessionListModel::KindColumn).data().toString(),
             QStringLiteral("fork"));
    // The origin's line makes the row taller than the others.
    QTreeView* view = m_window->sessionList()->view();
    QVERIFY(view->visualRect(model->index(row, 0)).height() >
            view->visualRect(model->index(row - 1, 0)).height());
    QCOMPARE(model->index(row, SessionListModel::NameColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("%1\nfork of %2").arg(m_fork, m_source));
    QCOMPARE(m_window->workspaceActions()->current(), m_fork);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->workspaceManager()->state(m_fork), WorkspaceState::Running,
                              60000);
    QTRY_COMPARE(model->index(row, SessionListModel::StateColumn).data().toString(),
                 QStringLiteral("running"));

    // Its disk and processes are the source's.
    QCOMPARE(run(m_fork, QStringLiteral("cat /root/keep.txt")), QByteArray("kept\n"));
    QCOMPARE(
        run(m_fork, QStringLiteral("kill -0 %1 && echo alive").arg(QString::fromUtf8(m_tickerPid))),
        QByteArray("alive\n"));
    QVERIFY(ticks(m_fork));

    // The source's own rule is the fork's, in the gate too.
    const Policy& policy = m_workbench->gate()->policy();
    QCOMPARE(policy.workspaceRules.value(m_fork).size(), 1);
    QCOMPARE(policy.workspaceRules.value(m_fork).first().pattern, QStringLiteral("make *"));

    // A person's Fork row on the source.
    const auto logged = test::newestRow(m_source);
    QVERIFY(logged);
    QCOMPARE(logged->row.kind, ActionKind::Fork);
    QCOMPARE(logged->row.command, m_fork);
    QCOMPARE(logged->row.actor.kind, Actor::Kind::Person);
    QCOMPARE(logged->row.outcome, Outcome::Succeeded);

    // The source is as it was: running, its file, its process, its one checkpoint, no origin.
    QCOMPARE(m_window->workspaceManager()->state(m_source), WorkspaceState::Running);
    QCOMPARE(model->index(model->rowOf(m_source), SessionListModel::KindColumn).data().toString(),
             QStringLiteral("workspace"));
    QVERIFY(model->index(model->rowOf(m_source), SessionListModel::NameColumn)
                .data(SessionListModel::kOriginRole)
                .isNull());
    QCOMPARE(run(m_source, QStringLiteral("cat /root/keep.txt")), QByteArray("kept\n"));
    QVERIFY(ticks(m_source));
    const auto checkpoints = m_window->workspaceManager()->workspace(m_source)->checkpoints();
    QVERIFY(checkpoints.ok());
    QCOMPARE(checkpoints->size(), 1);
    QCOMPARE(checkpoints->first().name, QStringLiteral("c1"));

    if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QVERIFY(m_window->grab().save(QString::fromLocal8Bit(dir) +
                                      QStringLiteral("/fork-session-list.png")));
        m_window->sessionList()->select(m_source); // the fork's row as it looks unselected
        QVERIFY(m_window->sessionList()->grab().save(
            QString::fromLocal8Bit(dir) + QStringLiteral("/fork-session-list-source.png")));
    }
}

QTEST_MAIN(TestForkDialog)
#include "tst_forkdialog.moc"
