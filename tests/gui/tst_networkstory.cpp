// The allowlist network's whole story in the real main window, with real parts: a person makes
// an allowlist workspace in the New Workspace dialog (their policy allows the agent's `pip`
// and one package index, Python's http.server on the host's loopback); an agent on the official
// MCP TypeScript SDK installs a package from that index through the egress proxy (no person
// asked); then it downloads from an index no rule names: the connection waits in the approval
// queue, which names the guest program that opened it, and the person approves it once; the
// download goes through. The command log and the workspace's Network tab show every attempt
// with who decided it. Needs a running libvirt daemon, the guest image (packaging/guest/
// build-image.sh minimal) and `npm ci --prefix tests/mcp`. With $SBW_SCREENSHOT_DIR set, the
// window is saved there while the connection waits (network-story-pending.png) and at the end
// (network-story-done.png).

#include "LoopbackHttpServer.h"
#include "McpAgent.h"
#include "StoryWindow.h"
#include "TestEnvironment.h"
#include "approval/ApprovalQueuePane.h"
#include "approval/Policy.h"
#include "base/DataPaths.h"
#include "log/CommandLogModel.h"
#include "log/CommandLogPane.h"
#include "network/GuestEgress.h"
#include "network/NetworkPane.h"
#include "window/MainWindow.h"
#include "window/SessionListPane.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspaceRecord.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QJsonArray>
#include <QLineEdit>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QtTest>

using namespace sbw;

namespace {

const QString kWorkspace = QStringLiteral("story-net");
constexpr int kCallTimeoutMs = 300 * 1000;

/// The agent's pip command for index `port`. --proxy names the proxy explicitly: the index is
/// on 127.0.0.1, which NO_PROXY (rightly) sends direct, where nothing listens in the guest; an
/// index with a real name needs nothing but the proxy variables every command gets.
QJsonArray pipArgv(const QString& verb, quint16 port, const QStringList& more)
{
    QJsonArray argv{QStringLiteral("pip"), verb, QStringLiteral("--no-cache-dir"), QStringLiteral("--timeout"),
                    QStringLiteral("120"), QStringLiteral("--proxy"),
                    QStringLiteral("http://127.0.0.1:%1").arg(guest_egress::kGuestPort), QStringLiteral("--index-url"),
                    QStringLiteral("http://127.0.0.1:%1/simple/").arg(port)};
    for (const QString& word : more)
        argv.append(word);
    return argv;
}

QString stdoutOf(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject().value(QLatin1String("stdout")).toString();
}

int exitStatusOf(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject().value(QLatin1String("exit_status")).toInt(-1);
}

} // namespace

class TestNetworkStory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void personCreatesAnAllowlistWorkspace();
    void agentInstallsFromTheAllowedIndex();
    void unlistedIndexIsAskedAndAllowedOnce();
    void logAndNetworkTabTellTheStory();

private:
    /// The command log pane's rows of action network for the workspace, newest first.
    QList<ActionRecord> networkRows(const CommandLogModel* model) const;
    void removeWorkspace();

    test::StoryWindow m_story;
    MainWindow* m_window = nullptr;
    CommandLogPane* m_log = nullptr;
    QTemporaryDir m_site; ///< the package index the servers serve
    test::LoopbackHttpServers m_servers;
    quint16 m_indexPort = 0;    ///< named by the person's policy
    quint16 m_unlistedPort = 0; ///< named by no rule
    QJsonObject m_server;
    QString m_askedProgram; ///< the Who of the waiting connection, as the queue showed it
};

void TestNetworkStory::initTestCase()
{
    QVERIFY(test::writeSimpleIndex(m_site.path()));
    m_indexPort = m_servers.start(m_site.path());
    m_unlistedPort = m_servers.start(m_site.path());
    QVERIFY(m_indexPort && m_unlistedPort);
    bool policyWritten = false;
    const QString missing = m_story.open([&] {
        removeWorkspace();
        // The person's policy for the agent's workspace: pip may run, one index may be reached.
        Policy policy;
        PolicyRule pip;
        pip.kinds = {ActionKind::Exec};
        pip.pattern = QStringLiteral("pip *");
        pip.decision = PolicyDecision::Allow;
        policy.workspaceRules[kWorkspace] = {
            pip, test::networkRule(QStringLiteral("127.0.0.1"), {m_indexPort}, PolicyDecision::Allow)};
        policyWritten = QDir().mkpath(paths::dataDir()) && policy.save(Policy::defaultPath()).ok();
    });
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    QVERIFY(policyWritten);
    m_window = m_story.window();
    m_log = m_story.log();
    m_server = test::startAgentsServer(*m_window);
    QVERIFY(!m_server.isEmpty());
}

void TestNetworkStory::cleanupTestCase()
{
    m_story.close();
    if (m_story.connection())
        removeWorkspace();
}

void TestNetworkStory::removeWorkspace()
{
    // Workspace::remove(), not virsh: it deletes the console log volume too.
    if (auto old = Workspace::open(*m_story.connection(), kWorkspace))
        QVERIFY(old.value()->remove().ok());
}

QList<ActionRecord> TestNetworkStory::networkRows(const CommandLogModel* model) const
{
    QList<ActionRecord> rows;
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->record(row).kind == ActionKind::Network && model->record(row).sandbox == kWorkspace)
            rows.append(model->record(row));
    return rows;
}

void TestNetworkStory::personCreatesAnAllowlistWorkspace()
{
    // Workspace ▸ New Workspace… (Ctrl+Shift+N): the person names it, picks the allowlist and
    // a small memory, and leaves "Start it now" on.
    bool filled = false;
    QTimer::singleShot(0, this, [&] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        dialog->findChild<QLineEdit*>(QStringLiteral("nameEdit"))->setText(kWorkspace);
        auto* image = dialog->findChild<QComboBox*>(QStringLiteral("imageBox"));
        image->setCurrentIndex(image->findData(QStringLiteral("minimal")));
        dialog->findChild<QSpinBox*>(QStringLiteral("memoryBox"))->setValue(384);
        auto* network = dialog->findChild<QComboBox*>(QStringLiteral("networkBox"));
        network->setCurrentIndex(network->findData(QStringLiteral("allowlist")));
        filled = dialog->findChild<QCheckBox*>(QStringLiteral("startNowBox"))->isChecked();
        dialog->accept();
    });
    m_window->workspaceActions()->newAction()->trigger();
    QVERIFY2(filled, "the New Workspace dialog did not open, or would not start the workspace");
    WorkspaceManager* manager = m_window->workspaceManager();
    QTRY_VERIFY_WITH_TIMEOUT(manager->state(kWorkspace) == WorkspaceState::Running, kCallTimeoutMs);
    QCOMPARE(manager->workspace(kWorkspace)->record().settings.network, WorkspaceNetwork::Allowlist);
}

void TestNetworkStory::agentInstallsFromTheAllowedIndex()
{
    test::McpAgent agent(m_server, QStringLiteral("exec"),
                         {{QStringLiteral("workspace"), kWorkspace},
                          {QStringLiteral("argv"), pipArgv(QStringLiteral("install"), m_indexPort, {QStringLiteral("sbwdemo")})}});
    // Allowed by the policy, exec and connections alike: nobody is asked.
    QTRY_VERIFY_WITH_TIMEOUT(agent.answered() || m_window->approvalPane()->list()->topLevelItemCount() > 0,
                             kCallTimeoutMs);
    QCOMPARE(m_window->approvalPane()->list()->topLevelItemCount(), 0);
    const QJsonObject result = agent.result();
    QVERIFY2(!result.value(QLatin1String("isError")).toBool(), qPrintable(test::mcpResultText(result)));
    QVERIFY2(stdoutOf(result).contains(QLatin1String("Successfully installed sbwdemo-1.0")),
             qPrintable(stdoutOf(result)));
    QCOMPARE(exitStatusOf(result), 0);
}

void TestNetworkStory::unlistedIndexIsAskedAndAllowedOnce()
{
    test::McpAgent agent(m_server, QStringLiteral("exec"),
                         {{QStringLiteral("workspace"), kWorkspace},
                          {QStringLiteral("argv"), pipArgv(QStringLiteral("download"), m_unlistedPort,
                                                           {QStringLiteral("-d"), QStringLiteral("/tmp/wheels"),
                                                            QStringLiteral("sbwdemo")})}});
    // The connection waits in the queue: the guest program that opened it, the workspace, the
    // request line. The agent's call stays open.
    ApprovalQueuePane* pane = m_window->approvalPane();
    QTRY_VERIFY_WITH_TIMEOUT(agent.answered() || pane->list()->topLevelItemCount() > 0, kCallTimeoutMs);
    QVERIFY2(!agent.answered(), qPrintable(test::mcpResultText(agent.result())));
    QVERIFY(pane->isVisible());
    const QTreeWidgetItem* item = pane->list()->topLevelItem(0);
    m_askedProgram = item->text(0);
    QCOMPARE(m_askedProgram, QStringLiteral("guest: pip"));
    QVERIFY2(item->toolTip(0).contains(QLatin1String("/pip download --no-cache-dir --timeout 120")), qPrintable(item->toolTip(0)));
    QCOMPARE(item->text(1), kWorkspace);
    QCOMPARE(item->text(2), QStringLiteral("network"));
    QCOMPARE(item->text(3), QStringLiteral("GET http://127.0.0.1:%1/simple/sbwdemo/").arg(m_unlistedPort));
    QVERIFY(m_story.saveScreenshot(QStringLiteral("network-story-pending.png")));

    // Approve (once): Ctrl+Return in the queue.
    pane->list()->setFocus();
    pane->list()->setCurrentItem(pane->list()->topLevelItem(0));
    QTest::keyClick(pane->list(), Qt::Key_Return, Qt::ControlModifier);
    // The wheel's own download is a second connection to the same unlisted index: asked too,
    // since "once" wrote no rule.
    QTRY_VERIFY_WITH_TIMEOUT(agent.answered() || pane->list()->topLevelItemCount() > 0, kCallTimeoutMs);
    QVERIFY2(!agent.answered(), qPrintable(test::mcpResultText(agent.result())));
    QCOMPARE(pane->list()->topLevelItem(0)->text(3),
             QStringLiteral("GET http://127.0.0.1:%1/simple/sbwdemo/sbwdemo-1.0-py3-none-any.whl").arg(m_unlistedPort));
    pane->list()->setCurrentItem(pane->list()->topLevelItem(0));
    QTest::keyClick(pane->list(), Qt::Key_Return, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(agent.answered(), kCallTimeoutMs);
    const QJsonObject result = agent.result();
    QVERIFY2(!result.value(QLatin1String("isError")).toBool(), qPrintable(test::mcpResultText(result)));
    QVERIFY2(stdoutOf(result).contains(QLatin1String("Saved /tmp/wheels/sbwdemo-1.0-py3-none-any.whl")),
             qPrintable(stdoutOf(result)));
    QCOMPARE(exitStatusOf(result), 0);
    QCOMPARE(pane->list()->topLevelItemCount(), 0);
}

void TestNetworkStory::logAndNetworkTabTellTheStory()
{
    const QString approver = m_window->approvalPane()->approverName();
    QVERIFY(!approver.isEmpty());
    // The command log: four connections, newest first: the two asked ones approved by the
    // person and naming pip, the two to the allowed index decided by the policy.
    QTRY_COMPARE_WITH_TIMEOUT(networkRows(m_log->model()).size(), 4, 5000);
    const QList<ActionRecord> rows = networkRows(m_log->model());
    const QString index = QStringLiteral("http://127.0.0.1:%1/simple/sbwdemo/").arg(m_indexPort);
    const QString unlisted = QStringLiteral("http://127.0.0.1:%1/simple/sbwdemo/").arg(m_unlistedPort);
    const QString wheel = QStringLiteral("sbwdemo-1.0-py3-none-any.whl");
    const QStringList commands{QStringLiteral("GET ") + unlisted + wheel, QStringLiteral("GET ") + unlisted,
                               QStringLiteral("GET ") + index + wheel, QStringLiteral("GET ") + index};
    for (int i = 0; i < rows.size(); ++i) {
        const ActionRecord& row = rows.at(i);
        QCOMPARE(row.command, commands.at(i));
        QCOMPARE(row.outcome, Outcome::Succeeded);
        QCOMPARE(row.networkAddress, QStringLiteral("127.0.0.1"));
        QVERIFY(row.bytesReceived > 0);
        QCOMPARE(row.actor.kind, Actor::Kind::Guest);
        if (i < 2) {
            QCOMPARE(row.approval, Approval::Approved);
            QCOMPARE(row.approver, approver);
            QVERIFY2(row.actor.name.startsWith(QLatin1String("pip (pid ")), qPrintable(row.actor.name));
        } else {
            QCOMPARE(row.approval, Approval::Auto);
        }
    }
    // The agent's two execs, ended as the agent was told.
    const auto agentExecsSucceeded = [this] {
        int execs = 0;
        for (int row = 0; row < m_log->model()->rowCount(); ++row) {
            const ActionRecord& record = m_log->model()->record(row);
            if (record.kind == ActionKind::Exec && record.sandbox == kWorkspace && record.actor.kind == Actor::Kind::Agent
                && record.outcome == Outcome::Succeeded && record.exitStatus == 0)
                ++execs;
        }
        return execs;
    };
    QTRY_COMPARE_WITH_TIMEOUT(agentExecsSucceeded(), 2, 5000);

    // The workspace's Network tab: the same four, newest first, with their figures.
    m_window->sessionList()->select(kWorkspace);
    QTabWidget* tabs = m_window->workspaceTabs();
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == QStringLiteral("&Network"))
            tabs->setCurrentIndex(i);
    auto* network = qobject_cast<NetworkPane*>(
        tabs->currentWidget()->findChild<NetworkPane*>(QString(), Qt::FindChildrenRecursively));
    QVERIFY2(network && network->isVisible(), "the Network tab shows no page for the workspace");
    const CommandLogModel* model = network->log()->model();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 4, 5000);
    for (int row = 0; row < 4; ++row)
        QCOMPARE(model->record(row).command, commands.at(row));
    QCOMPARE(model->data(model->index(0, CommandLogModel::ApprovalColumn)).toString(),
             QStringLiteral("approved by ") + approver);
    QCOMPARE(model->data(model->index(3, CommandLogModel::ApprovalColumn)).toString(), QStringLiteral("auto"));
    QVERIFY2(model->data(model->index(0, CommandLogModel::ActorColumn)).toString().startsWith(QLatin1String("guest (pip (pid ")),
             qPrintable(model->data(model->index(0, CommandLogModel::ActorColumn)).toString()));
    QVERIFY(m_story.saveScreenshot(QStringLiteral("network-story-done.png")));
}

QTEST_MAIN(TestNetworkStory)
#include "tst_networkstory.moc"
