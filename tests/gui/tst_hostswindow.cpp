// One window on two libvirt hosts: qemu:///system and this machine's daemon again as a remote
// host over qemu+ssh through an sshd of the test's own on the loopback (LoopbackSshd). The host
// list reads "127.0.0.1 · active · TCG" (KVM where there is) with the host's figures; a
// workspace on each host shows in the session list (the remote one as NAME@127.0.0.1, after the
// local host's rows); the remote workspace's Terminal and Files tabs work; Run ▸ Run On sends a
// run there. Killing the sshd loses that host: its line says it is reconnecting (the reason in
// the tooltip), its workspaces' states are unknown and its terminal says it was disconnected,
// while the local host's line, rows and commands go on. Restarting the sshd brings the host,
// its states and the same shell back, and a run goes there again. With SBW_SCREENSHOT_DIR set,
// saves hostswindow-two-hosts.png and hostswindow-remote-lost.png there.
// Needs a running libvirt daemon on qemu:///system (as root), openssh-server and the guest
// image (packaging/guest/build-image.sh minimal).

#include "LoopbackSshd.h"
#include "TemporarySettings.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "files/WorkspaceFilesPage.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/RunHostMenu.h"
#include "run/RunPane.h"
#include "sandbox/SandboxPool.h"
#include "stats/GraphPane.h"
#include "stats/StatsSampler.h"
#include "terminal/TerminalTab.h"
#include "terminal/TerminalTabs.h"
#include "terminal/TerminalWidget.h"
#include "widgets/OutputView.h"
#include "widgets/SandboxPageStack.h"
#include "window/HostList.h"
#include "window/MainWindow.h"
#include "window/SessionListModel.h"
#include "window/SessionListPane.h"
#include "workbench/Host.h"
#include "workbench/Workbench.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspacePane.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

using namespace sbw;

namespace {

constexpr int kBootTimeoutMs = 240 * 1000;
constexpr int kCommandTimeoutMs = 120 * 1000;
constexpr int kRunTimeoutMs = 300 * 1000;

const QString kLocal = QStringLiteral("hw-local");
const QString kRemote = QStringLiteral("hw-remote");
/// How the window names the workspaces of the remote host. It is this machine's daemon, so it
/// lists both workspaces, as the local host does.
const QString kRemoteAtHost = QStringLiteral("hw-remote@127.0.0.1");
const QString kLocalAtHost = QStringLiteral("hw-local@127.0.0.1");

/// Saves the window as NAME.png into $SBW_SCREENSHOT_DIR when it is set.
void screenshot(QWidget* window, const QString& name)
{
    if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(window->grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png")));
}

} // namespace

class TestHostsWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void hostListShowsBothHosts();
    void sessionListShowsAWorkspaceOfEachHost();
    void terminalAndFilesOfTheRemoteWorkspace();
    void runOnTheRemoteHost();
    void losingTheRemoteHostCostsNothingElse();
    void theRemoteHostComesBack();

private:
    SessionListModel* sessionModel() const;
    /// The session list's state text of workspace `name`.
    QString listedState(const QString& name) const;
    /// The text of host line `row` of the host list.
    QString hostLine(int row) const;
    /// "KVM" or "TCG": both hosts are this machine.
    QString accelerator() const;
    /// Selects `workspace`, runs `command` through the workspace pane's command line and gives
    /// what the pane shows of it, or why it did not exit 0.
    QString runTyped(const QString& workspace, const QString& command);
    /// Runs a shell script from the run pane on the host Run ▸ Run On has chosen and checks its
    /// output and exit status.
    void runScript();
    /// The terminal of workspace `name`'s first Terminal tab, or null.
    TerminalWidget* terminalOf(const QString& name) const;
    /// Types `line` and Return into `terminal`.
    static void type(TerminalWidget* terminal, const QString& line);

    QTemporaryDir m_data; ///< XDG_DATA_HOME: the workspaces' keys, the command log, the policy
    test::TemporarySettings m_settings; ///< the window's layout and choices, never the person's
    test::LoopbackSshd m_sshd;
    std::unique_ptr<HypervisorConnection> m_local;
    std::unique_ptr<Workbench> m_workbench; ///< outlives the window, as in the program
    std::unique_ptr<MainWindow> m_window;
    Host* m_remoteHost = nullptr;
};

void TestHostsWindow::initTestCase()
{
    QVERIFY(m_data.isValid());
    qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
    auto started = m_sshd.start();
    QVERIFY2(started.ok(), started ? "" : qPrintable(started.error().message));
    m_local = std::make_unique<HypervisorConnection>(test::guestUri());
    QVERIFY(m_local->ensureOpen().ok());
    // Left by an earlier run that did not finish.
    for (const QString& name : {kLocal, kRemote})
        if (auto old = Workspace::open(*m_local, name))
            QVERIFY(old.value()->remove().ok());

    m_workbench = std::make_unique<Workbench>(m_local.get());
    m_window = std::make_unique<MainWindow>(m_workbench.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    auto added = m_window->addConnection(m_sshd.uri(), false);
    QVERIFY2(added.ok(), added ? "" : qPrintable(added.error().message));
    m_remoteHost = m_workbench->host(m_sshd.uri());
    QVERIFY(m_remoteHost);
}

void TestHostsWindow::cleanupTestCase()
{
    m_window.reset();
    m_workbench.reset();
    if (!m_local)
        return;
    // The remote host is this machine's daemon: the local connection removes both workspaces,
    // also when a case failed with the remote host lost.
    for (const QString& name : {kLocal, kRemote})
        if (auto workspace = Workspace::open(*m_local, name))
            QVERIFY(workspace.value()->remove().ok());
    // The remote host's pre-booted microVM went with its pool.
    QCOMPARE(test::runDomains(m_local->uri()), QStringList());
    m_sshd.kill();
}

SessionListModel* TestHostsWindow::sessionModel() const
{
    return static_cast<SessionListModel*>(m_window->sessionList()->view()->model());
}

QString TestHostsWindow::listedState(const QString& name) const
{
    const int row = sessionModel()->rowOf(name);
    return row < 0 ? QStringLiteral("(not listed)")
                   : sessionModel()->index(row, SessionListModel::StateColumn).data().toString();
}

QString TestHostsWindow::hostLine(int row) const
{
    const QListWidgetItem* line = m_window->hostList()->item(row);
    return line ? QString(line->text()).replace(QChar::Nbsp, QLatin1Char(' ')) : QStringLiteral("(no line %1)").arg(row);
}

QString TestHostsWindow::accelerator() const
{
    return m_local->accelerator() == Accelerator::Kvm ? QStringLiteral("KVM")
                                                      : QStringLiteral("TCG");
}

QString TestHostsWindow::runTyped(const QString& workspace, const QString& command)
{
    m_window->sessionList()->select(workspace);
    WorkspacePane* pane = m_window->workspacePane();
    if (pane->workspace() != workspace)
        return QStringLiteral("(the pane shows %1)").arg(pane->workspace());
    QSignalSpy finished(pane, &WorkspacePane::commandFinished);
    pane->commandLine()->setText(command);
    QTest::keyClick(pane->commandLine(), Qt::Key_Return);
    if (!QTest::qWaitFor([&] { return !finished.isEmpty(); }, kCommandTimeoutMs))
        return QStringLiteral("(no end in sight)");
    const auto outcome = finished.first().first().value<WorkspaceCommandOutcome>();
    if (!outcome.error.isEmpty() || outcome.status.exitStatus != std::optional<int>(0))
        return QStringLiteral("(failed: %1)").arg(outcome.error);
    return pane->output()->shownText();
}

TerminalWidget* TestHostsWindow::terminalOf(const QString& name) const
{
    auto* tabs = qobject_cast<TerminalTabs*>(m_window->terminals()->page(name));
    return tabs && tabs->count() > 0 ? tabs->tab(0)->terminal() : nullptr;
}

void TestHostsWindow::type(TerminalWidget* terminal, const QString& line)
{
    QTest::keyClicks(terminal, line);
    QTest::keyClick(terminal, Qt::Key_Return);
}

// The host list has a line per host; the remote one comes up active, with the accelerator and,
// once sampled, the host's CPU and memory: the same machine's as the local line's.
void TestHostsWindow::hostListShowsBothHosts()
{
    HostList* hosts = m_window->hostList();
    QCOMPARE(hosts->count(), 2);
    const QString active = QStringLiteral(" · active · ") + accelerator();
    const QRegularExpression figures(
        QStringLiteral(" · CPU \\d+ % · memory \\d+\\.\\d of (\\d+\\.\\d) GiB$"));
    QTRY_VERIFY2_WITH_TIMEOUT(hostLine(0).startsWith(QStringLiteral("qemu:///system") + active) &&
                                  figures.match(hostLine(0)).hasMatch(),
                              qPrintable(hostLine(0)), 30000);
    QTRY_VERIFY2_WITH_TIMEOUT(hostLine(1).startsWith(QStringLiteral("127.0.0.1") + active),
                              qPrintable(hostLine(1)), 60000);
    QTRY_VERIFY2_WITH_TIMEOUT(figures.match(hostLine(1)).hasMatch(), qPrintable(hostLine(1)),
                              30000);
    QCOMPARE(hostLine(1).left(hostLine(1).indexOf(QStringLiteral(" · CPU"))),
             QStringLiteral("127.0.0.1") + active);
    QCOMPARE(figures.match(hostLine(1)).captured(1), figures.match(hostLine(0)).captured(1));
    // A line may wrap only between its parts: inside one the spaces do not break.
    for (const QString& part : hosts->item(0)->text().split(QStringLiteral(" · ")))
        QVERIFY2(!part.contains(QLatin1Char(' ')), qPrintable(part));
    QCOMPARE(hosts->item(1)->toolTip(), m_sshd.uri());
    // Both lines are whole (wrapped within the dock's width), one under the other.
    const QRect first = hosts->visualItemRect(hosts->item(0));
    const QRect second = hosts->visualItemRect(hosts->item(1));
    QVERIFY2(first.bottom() < second.top() && second.bottom() < hosts->viewport()->height() &&
                 second.right() < hosts->viewport()->width(),
             qPrintable(QStringLiteral("lines at %1,%2 %3x%4 and %5,%6 %7x%8 in %9x%10")
                            .arg(first.x())
                            .arg(first.y())
                            .arg(first.width())
                            .arg(first.height())
                            .arg(second.x())
                            .arg(second.y())
                            .arg(second.width())
                            .arg(second.height())
                            .arg(hosts->viewport()->width())
                            .arg(hosts->viewport()->height())));
}

// A workspace made on each host's own connection shows in the one session list: the local
// host's rows first, the remote host's named NAME@127.0.0.1. The remote host is this machine's
// daemon, so each host lists both workspaces.
void TestHostsWindow::sessionListShowsAWorkspaceOfEachHost()
{
    WorkspaceSettings settings;
    settings.memoryMiB = 256;
    std::vector<std::unique_ptr<Workspace>> made;
    for (auto [connection, name] :
         {std::pair{m_local.get(), kLocal}, std::pair{m_remoteHost->connection(), kRemote}}) {
        auto created = Workspace::create(*connection, name, settings);
        QVERIFY2(created.ok(), qPrintable(created.ok() ? QString() : created.error().message));
        auto started = created.value()->start();
        QVERIFY2(started.ok(), qPrintable(started.ok() ? QString() : started.error().message));
        made.push_back(std::move(created.value()));
    }
    // Which workspace a shell is in, for the tabs below.
    QCOMPARE(test::shellOutput(*made[0], QStringLiteral("echo local > /root/which")), QByteArray());
    QCOMPARE(test::shellOutput(*made[1], QStringLiteral("echo remote > /root/which")),
             QByteArray());
    made.clear(); // the window's workspaces open sessions of their own

    for (const QString& name : {kLocal, kRemote, kLocalAtHost, kRemoteAtHost})
        QTRY_COMPARE_WITH_TIMEOUT(listedState(name), QStringLiteral("running"), kBootTimeoutMs);
    SessionListModel* model = sessionModel();
    QVERIFY(model->rowOf(kLocal) < model->rowOf(kRemoteAtHost));
    QVERIFY(model->rowOf(kRemote) < model->rowOf(kLocalAtHost));
    QCOMPARE(
        model->index(model->rowOf(kRemoteAtHost), SessionListModel::NameColumn).data().toString(),
        kRemoteAtHost);
    // The Resources dock follows the selected workspace's host.
    const auto uuidOf = [this](const QString& name) {
        for (const auto& entry : m_workbench->workspaces()->workspaces())
            if (entry.name == name)
                return entry.record.uuid;
        return QString();
    };
    GraphPane* graphs = m_window->graphPane();
    m_window->sessionList()->select(kLocal);
    QCOMPARE(graphs->sampler(), m_workbench->sampler());
    QTRY_COMPARE_WITH_TIMEOUT(graphs->selectedSandbox(), uuidOf(kLocal), 10000);
    m_window->sessionList()->select(kRemoteAtHost);
    QCOMPARE(graphs->sampler(), m_remoteHost->sampler());
    QCOMPARE(graphs->selectedSandbox(), uuidOf(kRemoteAtHost));
    screenshot(m_window.get(), QStringLiteral("hostswindow-two-hosts"));
}

// Selected in the window, the remote workspace's Terminal tab is a shell in it and its Files tab
// lists its /root.
void TestHostsWindow::terminalAndFilesOfTheRemoteWorkspace()
{
    m_window->sessionList()->select(kRemoteAtHost);
    QCOMPARE(m_window->workspacePane()->workspace(), kRemoteAtHost);
    m_window->workspaceTabs()->setCurrentWidget(m_window->terminals());
    QTRY_VERIFY_WITH_TIMEOUT(terminalOf(kRemoteAtHost), 60000);
    TerminalWidget* terminal = terminalOf(kRemoteAtHost);
    // The typed line holds "$((6*7))", so only the shell's answer matches.
    type(terminal, QStringLiteral("cat which; echo $((6*7))"));
    QTRY_VERIFY2_WITH_TIMEOUT(terminal->screenText().contains(QStringLiteral("\nremote\n42\n")),
                              qPrintable(terminal->screenText()), 60000);

    m_window->workspaceTabs()->setCurrentWidget(m_window->files());
    auto* page = qobject_cast<WorkspaceFilesPage*>(m_window->files()->page(kRemoteAtHost));
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(page->tree(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(
        page->tree()->model()->indexForPath(QByteArrayLiteral("/root/which")).isValid(), 30000);
    m_window->workspaceTabs()->setCurrentWidget(m_window->terminals());
}

// Run ▸ Run On ▸ 127.0.0.1: the run pane's script runs on the remote host, and the microVM
// made ready for the next run is that host's.
void TestHostsWindow::runOnTheRemoteHost()
{
    RunHostMenu* menu = m_window->runHostMenu();
    QStringList choices;
    QAction* remote = nullptr;
    for (QAction* action : menu->actions()) {
        choices << action->text();
        if (action->text() == QStringLiteral("127.0.0.1"))
            remote = action;
    }
    QCOMPARE(choices, (QStringList{QStringLiteral("qemu:///system"), QStringLiteral("127.0.0.1")}));
    QVERIFY(remote);
    remote->trigger();
    QCOMPARE(menu->host(), m_remoteHost);
    QVERIFY(remote->isChecked());

    runScript();
    // "Finished: exit status 3 · restored from the saved microVM in 2.1 s · script 120 ms · on 127.0.0.1"
    QVERIFY2(m_window->runPane()->statusText().startsWith(
                 QStringLiteral("Finished: exit status 3 · restored from the saved microVM in "))
                 && m_window->runPane()->statusText().endsWith(QStringLiteral(" · on 127.0.0.1")),
             qPrintable(m_window->runPane()->statusText()));
    // The next run's microVM boots on the host the run went to, not on the local one.
    QTRY_VERIFY_WITH_TIMEOUT(m_remoteHost->sandboxPool()->hasReady(), kBootTimeoutMs);
    QCOMPARE(m_workbench->sandboxPool()->readyCount(), 0);
}

void TestHostsWindow::runScript()
{
    m_window->sessionList()->select(QString());
    RunPane* pane = m_window->runPane();
    pane->setLanguage(Language::Shell);
    pane->setScript(QStringLiteral("echo run-$((6*7)); echo to-stderr >&2; exit 3\n"));
    QSignalSpy finished(pane, &RunPane::runFinished);
    QTest::mouseClick(pane->runButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
    QVERIFY(pane->lastResult());
    const RunResult result = *pane->lastResult();
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(result.stdoutData, QByteArray("run-42\n"));
    QCOMPARE(result.stderrData, QByteArray("to-stderr\n"));
    QCOMPARE(result.exitStatus, std::optional<int>(3));
    QVERIFY2(pane->statusText().contains(QStringLiteral("exit status 3")),
             qPrintable(pane->statusText()));
}

// Killing the sshd loses the remote host: its line says so with the reason in the tooltip, its
// workspaces' states are unknown and the terminal says it was disconnected. The local host's
// line keeps its figures coming, its rows stay running and a command there runs.
void TestHostsWindow::losingTheRemoteHostCostsNothingElse()
{
    QStringList lines; // every text the remote host's line takes once it stops being active
    QObject watching;  // ends the watch with this case
    // Until the daemon's socket is seen closed, a sample under way may still refresh the
    // active line's figures: the watch starts at the first line that is not active.
    const QString active = QStringLiteral("127.0.0.1 · active · ");
    connect(m_window->hostList()->model(), &QAbstractItemModel::dataChanged, &watching, [&] {
        const QString line = hostLine(1);
        if (lines.isEmpty() ? !line.startsWith(active) : lines.constLast() != line)
            lines << line;
    });
    QSignalSpy lost(m_remoteHost->connection(), &HypervisorConnection::disconnected);
    m_sshd.kill();
    const QRegularExpression reconnecting(
        QStringLiteral("^127\\.0\\.0\\.1 · reconnecting in \\d+ s$"));
    QTRY_VERIFY2_WITH_TIMEOUT(reconnecting.match(hostLine(1)).hasMatch(), qPrintable(hostLine(1)),
                              30000);
    QCOMPARE(lines.mid(0, 2), (QStringList{QStringLiteral("127.0.0.1 · lost"),
                                           QStringLiteral("127.0.0.1 · reconnecting in 1 s")}));
    // The first retry is a second away: the tooltip still gives the loss's reason.
    QCOMPARE(lost.size(), 1);
    QCOMPARE(
        m_window->hostList()->item(1)->toolTip(),
        m_sshd.uri() +
            QStringLiteral(
                "\nthe connection to 127.0.0.1 ended (the libvirt daemon closed the connection)"));

    QTRY_COMPARE_WITH_TIMEOUT(listedState(kRemoteAtHost), QStringLiteral("unknown"), 10000);
    QCOMPARE(listedState(kLocalAtHost), QStringLiteral("unknown"));
    QCOMPARE(listedState(kLocal), QStringLiteral("running"));
    QCOMPARE(listedState(kRemote), QStringLiteral("running"));
    TerminalWidget* terminal = terminalOf(kRemoteAtHost);
    QVERIFY(terminal);
    QTRY_VERIFY2_WITH_TIMEOUT(terminal->screenText().contains(QStringLiteral("[disconnected: ")),
                              qPrintable(terminal->screenText()), 30000);
    m_window->sessionList()->select(kRemoteAtHost);
    m_window->workspaceTabs()->setCurrentWidget(m_window->terminals());
    screenshot(m_window.get(), QStringLiteral("hostswindow-remote-lost"));

    // The local host goes on: new figures on its line, a command in its workspace.
    QSignalSpy sampled(m_workbench->sampler(), &StatsSampler::sampled);
    QTRY_VERIFY_WITH_TIMEOUT(sampled.size() >= 2, 10000);
    QVERIFY2(hostLine(0).startsWith(QStringLiteral("qemu:///system · active · ") + accelerator() +
                                    QStringLiteral(" · CPU ")),
             qPrintable(hostLine(0)));
    QVERIFY2(m_window->hostList()->item(0)->toolTip() == QStringLiteral("qemu:///system"),
             qPrintable(m_window->hostList()->item(0)->toolTip()));
    QElapsedTimer took;
    took.start();
    const QString shown = runTyped(kLocal, QStringLiteral("cat which; echo $((6*7))"));
    QVERIFY2(
        shown.startsWith(QStringLiteral("$ cat which; echo $((6*7))\nlocal\n42\nexit status 0 · ")),
        qPrintable(shown));
    qInfo("a command in the local workspace while the remote host is lost: %lld ms",
          took.elapsed());
    QCOMPARE(listedState(kLocal), QStringLiteral("running"));
    QVERIFY(reconnecting.match(hostLine(1)).hasMatch());
    qInfo("the remote host's line while lost: %s; its tooltip: %s",
          qPrintable(lines.join(QStringLiteral(" | "))),
          qPrintable(m_window->hostList()->item(1)->toolTip()));
}

// Restarting the sshd brings the host back: its line is active with figures again, its
// workspaces run, the terminal is attached to the same shell again and a command runs there.
void TestHostsWindow::theRemoteHostComesBack()
{
    auto restarted = m_sshd.start();
    QVERIFY2(restarted.ok(), restarted ? "" : qPrintable(restarted.error().message));
    const QString active = QStringLiteral("127.0.0.1 · active · ") + accelerator();
    // The next try is at most 30 s away (the backoff's longest wait).
    QTRY_VERIFY2_WITH_TIMEOUT(hostLine(1).startsWith(active), qPrintable(hostLine(1)), 60000);
    QCOMPARE(m_window->hostList()->item(1)->toolTip(), m_sshd.uri());
    QTRY_VERIFY2_WITH_TIMEOUT(hostLine(1).startsWith(active + QStringLiteral(" · CPU ")),
                              qPrintable(hostLine(1)), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(listedState(kRemoteAtHost), QStringLiteral("running"), 30000);
    QCOMPARE(listedState(kLocalAtHost), QStringLiteral("running"));

    TerminalWidget* terminal = terminalOf(kRemoteAtHost);
    QVERIFY(terminal);
    QTRY_VERIFY2_WITH_TIMEOUT(
        terminal->screenText().contains(QStringLiteral("[reconnected to the same shell]")),
        qPrintable(terminal->screenText()), 60000);
    type(terminal, QStringLiteral("echo back-$((6*7))"));
    QTRY_VERIFY2_WITH_TIMEOUT(terminal->screenText().contains(QStringLiteral("\nback-42\n")),
                              qPrintable(terminal->screenText()), 60000);
    const QString shown = runTyped(kRemoteAtHost, QStringLiteral("cat which; echo $((6*7))"));
    QVERIFY2(shown.startsWith(
                 QStringLiteral("$ cat which; echo $((6*7))\nremote\n42\nexit status 0 · ")),
             qPrintable(shown));
    // Run ▸ Run On still names the host: the next run goes there again.
    QCOMPARE(m_window->runHostMenu()->host(), m_remoteHost);
    runScript();
}

// Not QTEST_MAIN: libvirt's event loop needs prepareProcess() before the application exists.
int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestHostsWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_hostswindow.moc"
