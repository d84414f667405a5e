// A workspace's connections on screen, with real parts and no guest: curl through the egress
// proxy (listening on the host's loopback for workspace "demo") to Python's http.server, the
// policy gate with its file, the approval queue pane and the Network tab on one SQLite command
// log. An asked destination waits in the queue and goes through once approved; the Network tab
// lists the row live; Allow Always in the queue writes the rule and the next connection is not
// asked; Deny Always on a Network tab row writes a deny rule and the next one gets 403.

#include "LoopbackHttpServer.h"
#include "approval/ApprovalQueue.h"
#include "approval/ApprovalQueuePane.h"
#include "approval/PolicyGate.h"
#include "egress/EgressProxy.h"
#include "log/CommandLog.h"
#include "log/CommandLogModel.h"
#include "log/CommandLogPane.h"
#include "network/NetworkPane.h"

#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace sbw;

namespace {

const QString kWorkspace = QStringLiteral("demo");

} // namespace

class TestNetworkPane : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_policyFile;
    std::shared_ptr<CommandLog> m_log;
    std::unique_ptr<ApprovalQueue> m_queue;
    std::unique_ptr<PolicyGate> m_gate;
    std::unique_ptr<EgressProxy> m_proxy;
    std::unique_ptr<ApprovalQueuePane> m_approvals;
    std::unique_ptr<NetworkPane> m_network;
    quint16 m_proxyPort = 0;
    test::LoopbackHttpServers m_servers;
    quint16 m_askedPort = 0;  ///< no rule: asked, approved once
    quint16 m_alwaysPort = 0; ///< no rule: asked, allowed always
    QByteArray m_page;

    /// Starts curl through the proxy for `port`'s page; the caller waits for it to finish.
    std::unique_ptr<QProcess> startCurl(quint16 port)
    {
        auto process = std::make_unique<QProcess>();
        process->start(QStringLiteral("curl"),
                       {QStringLiteral("-sS"), QStringLiteral("--max-time"), QStringLiteral("60"), QStringLiteral("-x"),
                        QStringLiteral("http://127.0.0.1:%1").arg(m_proxyPort), QStringLiteral("-w"),
                        QStringLiteral("\n%{http_code}"), QStringLiteral("http://127.0.0.1:%1/page.txt").arg(port)});
        return process;
    }

    /// The body and status curl printed, once it ended.
    static QByteArray finished(QProcess& curl)
    {
        if (!QTest::qWaitFor([&] { return curl.state() == QProcess::NotRunning; }, 90000))
            curl.kill();
        return curl.readAllStandardOutput();
    }

    QByteArray expectedOk() const { return m_page + "\n200"; }

    /// The Network tab's row of the newest connection to `port`, or -1.
    int networkRow(quint16 port) const
    {
        const QList<ActionRecord>& rows = m_network->log()->model()->records();
        for (int row = 0; row < rows.size(); ++row)
            if (rows.at(row).command == QStringLiteral("GET http://127.0.0.1:%1/page.txt").arg(port)
                && rows.at(row).outcome != Outcome::Running)
                return row;
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("site")));
        m_page = "network tab page\n" + QByteArray(50000, 'n') + "\n";
        QFile page(m_dir.filePath(QStringLiteral("site/page.txt")));
        QVERIFY(page.open(QIODevice::WriteOnly) && page.write(m_page) == m_page.size());
        page.close();
        m_askedPort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        m_alwaysPort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        QVERIFY(m_askedPort && m_alwaysPort);

        m_log = CommandLog::open(m_dir.filePath(QStringLiteral("log.sqlite"))).value();
        m_policyFile = m_dir.filePath(QStringLiteral("policy.json"));
        m_queue = std::make_unique<ApprovalQueue>();
        m_gate = std::make_unique<PolicyGate>(Policy{}, m_log);
        m_gate->setPolicyFile(m_policyFile);
        m_gate->setApprovalQueue(m_queue.get());
        m_proxy = std::make_unique<EgressProxy>(m_gate.get(), m_log);
        m_proxyPort = m_proxy->listenOnLoopback(kWorkspace);
        QVERIFY(m_proxyPort != 0);

        const auto writer = [this](const QString& sandbox, const NetworkDestination& destination,
                                   PolicyDecision decision) {
            return m_gate->setDestinationRule(sandbox, destination, decision, QStringLiteral("alice"));
        };
        m_approvals = std::make_unique<ApprovalQueuePane>(m_queue.get());
        m_approvals->setApproverName(QStringLiteral("alice"));
        m_approvals->setDestinationRuleWriter(writer);
        m_approvals->resize(700, 400);
        m_approvals->show();
        m_network = std::make_unique<NetworkPane>(m_log, kWorkspace, WorkspaceNetwork::Allowlist, writer);
        m_network->resize(1100, 500);
        m_network->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_network.get()));
    }

    void askedDestinationWaitsThenGoesThroughWhenApproved()
    {
        auto curl = startCurl(m_askedPort);
        QTRY_COMPARE_WITH_TIMEOUT(m_approvals->list()->topLevelItemCount(), 1, 30000);
        const QTreeWidgetItem* item = m_approvals->list()->topLevelItem(0);
        QCOMPARE(item->text(0), QStringLiteral("guest"));
        QCOMPARE(item->text(2), QStringLiteral("network"));
        QCOMPARE(item->text(3), QStringLiteral("GET http://127.0.0.1:%1/page.txt").arg(m_askedPort));
        const auto buttons = m_approvals->findChildren<QPushButton*>();
        const auto button = [&](const QString& text) {
            for (QPushButton* b : buttons)
                if (b->text() == text)
                    return b;
            return static_cast<QPushButton*>(nullptr);
        };
        QVERIFY(button(QStringLiteral("Allow Always"))->isVisible());
        QVERIFY(!button(QStringLiteral("Edit…"))->isEnabled()); // a connection has nothing to edit
        QCOMPARE(curl->state(), QProcess::Running); // it waits for the person
        QTest::mouseClick(button(QStringLiteral("Approve")), Qt::LeftButton);
        QCOMPARE(finished(*curl), expectedOk());
        QCOMPARE(m_approvals->list()->topLevelItemCount(), 0);

        // The Network tab shows the row within the model's refresh, with its figures.
        QTRY_VERIFY_WITH_TIMEOUT(networkRow(m_askedPort) == 0, 5000);
        const CommandLogModel* model = m_network->log()->model();
        const auto cell = [&](int column) { return model->data(model->index(0, column)).toString(); };
        QCOMPARE(cell(CommandLogModel::Status), QStringLiteral("succeeded"));
        QCOMPARE(cell(CommandLogModel::ApprovalColumn), QStringLiteral("approved by alice"));
        QCOMPARE(cell(CommandLogModel::NetworkAddress), QStringLiteral("127.0.0.1"));
        QVERIFY(cell(CommandLogModel::BytesReceived).toLongLong() > m_page.size());
        QVERIFY(cell(CommandLogModel::BytesSent).toLongLong() > 0);
        const QTableView* table = m_network->log()->table();
        QVERIFY(!table->isColumnHidden(CommandLogModel::BytesReceived));
        QVERIFY(table->isColumnHidden(CommandLogModel::NetworkAddress)); // in the header's menu
        QVERIFY(table->isColumnHidden(CommandLogModel::Sandbox));
        QVERIFY(table->isColumnHidden(CommandLogModel::StdoutBytes));
    }

    void allowAlwaysInTheQueueWritesTheRule()
    {
        auto curl = startCurl(m_alwaysPort);
        QTRY_COMPARE_WITH_TIMEOUT(m_approvals->list()->topLevelItemCount(), 1, 30000);
        m_approvals->allowCurrentAlways();
        QCOMPARE(finished(*curl), expectedOk());
        QCOMPARE(m_approvals->list()->topLevelItemCount(), 0);
        const Policy onDisk = Policy::load(m_policyFile).value();
        QCOMPARE(onDisk.workspaceRules.value(kWorkspace),
                 QList{test::networkRule(QStringLiteral("127.0.0.1"), {m_alwaysPort}, PolicyDecision::Allow)});
        QCOMPARE(m_gate->policy(), onDisk);

        int asked = 0;
        connect(m_queue.get(), &ApprovalQueue::added, this, [&] { ++asked; });
        auto again = startCurl(m_alwaysPort);
        QCOMPARE(finished(*again), expectedOk());
        disconnect(m_queue.get(), &ApprovalQueue::added, this, nullptr);
        QCOMPARE(asked, 0);
    }

    void denyAlwaysOnANetworkRow()
    {
        QTRY_VERIFY_WITH_TIMEOUT(networkRow(m_askedPort) >= 0, 5000);
        m_network->log()->table()->selectRow(networkRow(m_askedPort));
        QVERIFY(m_network->denyAlwaysButton()->isEnabled());
        QTest::mouseClick(m_network->denyAlwaysButton(), Qt::LeftButton);
        QCOMPARE(m_network->statusLabel()->text(),
                 QStringLiteral("Rule added: deny 127.0.0.1:%1 for workspace 'demo'").arg(m_askedPort));
        QCOMPARE(Policy::load(m_policyFile).value().workspaceRules.value(kWorkspace).first(),
                 test::networkRule(QStringLiteral("127.0.0.1"), {m_askedPort}, PolicyDecision::Deny));
        auto curl = startCurl(m_askedPort);
        QCOMPARE(finished(*curl),
                 QStringLiteral("denied by policy rule 1 of workspace 'demo' (network \"127.0.0.1\" ports %1): "
                                "127.0.0.1:%1\n\n403")
                     .arg(m_askedPort)
                     .toUtf8());
        // Every connection so far, newest first: asked once, allowed always twice, denied.
        const CommandLogModel* model = m_network->log()->model();
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 4, 5000);
        QCOMPARE(model->record(0).outcome, Outcome::Denied);
        QCOMPARE(model->record(3).approver, QStringLiteral("alice"));
        QVERIFY(m_network->grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/networkpane.png")));
    }

    void onlyThisWorkspacesConnectionsAreListed()
    {
        ActionStart exec;
        exec.sandbox = kWorkspace;
        exec.kind = ActionKind::Exec;
        exec.command = QStringLiteral("ls");
        ActionStart elsewhere;
        elsewhere.sandbox = QStringLiteral("other");
        elsewhere.kind = ActionKind::Network;
        elsewhere.command = QStringLiteral("CONNECT pypi.org:443");
        ActionStart badHost;
        badHost.sandbox = kWorkspace;
        badHost.kind = ActionKind::Network;
        badHost.command = QStringLiteral("CONNECT 0x7f.1:443");
        for (const ActionStart& start : {exec, elsewhere, badHost})
            QVERIFY(m_log->finish(m_log->begin(start).value(), {}).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!m_network->log()->model()->records().isEmpty()
                                     && m_network->log()->model()->records().first().command == badHost.command,
                                 5000);
        for (const ActionRecord& row : m_network->log()->model()->records()) {
            QCOMPARE(row.sandbox, kWorkspace);
            QCOMPARE(row.kind, ActionKind::Network);
        }
        // A row that named no valid host has no destination to set a rule for.
        m_network->log()->table()->selectRow(0);
        QVERIFY(!m_network->allowAlwaysButton()->isEnabled());
        QVERIFY(!m_network->denyAlwaysButton()->isEnabled());
    }
};

QTEST_MAIN(TestNetworkPane)
#include "tst_networkpane.moc"
