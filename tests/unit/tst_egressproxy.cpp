// EgressProxy with real clients and servers on the host's loopback (no guest): curl through the
// proxy to Python's http.server, the policy's network rules deciding each destination, a person
// approving an unlisted one through the approval queue, names that lead to loopback refused,
// a tunnel whose TLS server name is not its CONNECT host closed, and every attempt in the log.

#include "LoopbackHttpServer.h"
#include "approval/ApprovalQueue.h"
#include "approval/PolicyGate.h"
#include "egress/EgressProxy.h"
#include "log/CommandLog.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>


using namespace sbw;

namespace {

const QString kWorkspace = QStringLiteral("net-ws");

struct CurlResult
{
    int exitCode = -1;
    QByteArray body;
    QByteArray status; ///< the HTTP status curl saw ("200", "403"), from -w
};

} // namespace

class TestEgressProxy : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<CommandLog> m_log;
    std::unique_ptr<ApprovalQueue> m_queue;
    std::unique_ptr<PolicyGate> m_gate;
    std::unique_ptr<EgressProxy> m_proxy;
    quint16 m_proxyPort = 0;
    test::LoopbackHttpServers m_servers;
    quint16 m_allowedPort = 0;
    quint16 m_deniedPort = 0;
    quint16 m_askedPort = 0;
    quint16 m_namePort = 0; ///< every name allowed, no address named
    quint16 m_otherPort = 0; ///< no rule: asked
    QByteArray m_page;

    /// curl through the proxy; runs without blocking the event loop (the proxy asks on it).
    CurlResult curl(const QStringList& arguments)
    {
        QProcess process;
        process.start(QStringLiteral("curl"),
                      QStringList{QStringLiteral("-sS"), QStringLiteral("--max-time"), QStringLiteral("60"),
                                  QStringLiteral("-x"), QStringLiteral("http://127.0.0.1:%1").arg(m_proxyPort),
                                  QStringLiteral("-w"), QStringLiteral("\n%{http_code}")} +
                          arguments);
        if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 90000))
            process.kill();
        CurlResult result;
        result.exitCode = process.exitCode();
        const QByteArray out = process.readAllStandardOutput();
        const qsizetype split = out.lastIndexOf('\n');
        result.body = out.left(split);
        result.status = out.mid(split + 1);
        return result;
    }

    ActionRecord newestNetworkRow()
    {
        LogFilter filter;
        filter.sandbox = kWorkspace;
        const auto rows = m_log->rows(filter, 1);
        return rows && !rows->isEmpty() ? rows->first() : ActionRecord{};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("site")));
        m_page = "egress test page\n" + QByteArray(300000, 'x') + "\nend\n";
        QFile page(m_dir.filePath(QStringLiteral("site/page.txt")));
        QVERIFY(page.open(QIODevice::WriteOnly) && page.write(m_page) == m_page.size());
        page.close();
        m_allowedPort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        m_deniedPort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        m_askedPort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        m_namePort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        m_otherPort = m_servers.start(m_dir.filePath(QStringLiteral("site")));
        QVERIFY(m_allowedPort && m_deniedPort && m_askedPort && m_namePort && m_otherPort);

        m_log = CommandLog::open(m_dir.filePath(QStringLiteral("log.sqlite"))).value();
        Policy policy;
        policy.workspaceRules[kWorkspace] = {
            test::networkRule(QStringLiteral("127.0.0.1"), {m_allowedPort}, PolicyDecision::Allow),
            test::networkRule(QStringLiteral("127.0.0.1"), {m_deniedPort}, PolicyDecision::Deny),
            test::networkRule(QStringLiteral("*"), {m_namePort}, PolicyDecision::Allow),
            test::networkRule(QStringLiteral("localhost"), {m_askedPort}, PolicyDecision::Allow),
        };
        m_queue = std::make_unique<ApprovalQueue>();
        m_gate = std::make_unique<PolicyGate>(policy, m_log);
        m_gate->setApprovalQueue(m_queue.get());
        m_proxy = std::make_unique<EgressProxy>(m_gate.get(), m_log);
        m_proxyPort = m_proxy->listenOnLoopback(kWorkspace);
        QVERIFY(m_proxyPort != 0);
    }

    void allowedDestinationServesThePage()
    {
        const CurlResult r = curl({QStringLiteral("http://127.0.0.1:%1/page.txt").arg(m_allowedPort)});
        QCOMPARE(r.status, QByteArray("200"));
        QCOMPARE(r.body, m_page);
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Succeeded);
        const ActionRecord row = newestNetworkRow();
        QCOMPARE(row.kind, ActionKind::Network);
        QCOMPARE(row.actor.kind, Actor::Kind::Guest);
        QCOMPARE(row.command, QStringLiteral("GET http://127.0.0.1:%1/page.txt").arg(m_allowedPort));
        QCOMPARE(row.approval, Approval::Auto);
        QCOMPARE(row.networkAddress, QStringLiteral("127.0.0.1"));
        QVERIFY2(row.bytesReceived > m_page.size(), qPrintable(QString::number(row.bytesReceived)));
        QVERIFY(row.bytesSent > 0);
    }

    void deniedDestinationGets403WithTheRule()
    {
        const CurlResult r = curl({QStringLiteral("http://127.0.0.1:%1/page.txt").arg(m_deniedPort)});
        QCOMPARE(r.status, QByteArray("403"));
        QCOMPARE(r.body, QStringLiteral("denied by policy rule 2 of workspace 'net-ws' (network \"127.0.0.1\" ports %1): "
                                        "127.0.0.1:%1\n")
                             .arg(m_deniedPort)
                             .toUtf8());
        const ActionRecord row = newestNetworkRow();
        QCOMPARE(row.outcome, Outcome::Denied);
        QCOMPARE(row.kind, ActionKind::Network);
    }

    void unlistedDestinationWaitsForAPerson()
    {
        QProcess process;
        bool approved = false;
        connect(m_queue.get(), &ApprovalQueue::added, this, [&](qint64 id) {
            const auto pending = m_queue->find(id);
            QVERIFY(pending);
            QCOMPARE(pending->request.kind, ActionKind::Network);
            QCOMPARE(pending->request.destination.host, QStringLiteral("127.0.0.1"));
            QCOMPARE(pending->request.destination.port, m_askedPort);
            approved = m_queue->approve(id, QStringLiteral("alice"));
        });
        const CurlResult r = curl({QStringLiteral("http://127.0.0.1:%1/page.txt").arg(m_askedPort)});
        disconnect(m_queue.get(), &ApprovalQueue::added, this, nullptr);
        QVERIFY(approved);
        QCOMPARE(r.status, QByteArray("200"));
        QCOMPARE(r.body, m_page);
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Succeeded);
        QCOMPARE(newestNetworkRow().approval, Approval::Approved);
        QCOMPARE(newestNetworkRow().approver, QStringLiteral("alice"));
    }

    void nameLeadingToLoopbackIsRefused()
    {
        // "*" allows every name on this port, but localhost resolves to loopback, which no rule
        // of that port names.
        const CurlResult r = curl({QStringLiteral("http://localhost:%1/page.txt").arg(m_namePort)});
        QCOMPARE(r.status, QByteArray("403"));
        QVERIFY2(r.body.startsWith("localhost resolves to 127.0.0.1 (loopback)"), r.body.constData());
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Denied);
    }

    // A name a person allows once that leads to loopback: they are asked again, shown where it
    // leads; approved, it goes through; denied, the program gets the person's 403 and the
    // connection has one row.
    void nameAllowedOnceIsAskedAgainWithItsAddress()
    {
        QStringList asked;
        bool denySecond = false;
        connect(m_queue.get(), &ApprovalQueue::added, this, [&](qint64 id) {
            asked.append(m_queue->find(id)->request.command);
            if (denySecond && asked.size() % 2 == 0)
                m_queue->deny(id, QStringLiteral("alice"), QStringLiteral("not the host"));
            else
                m_queue->approve(id, QStringLiteral("alice"));
        });
        const QString url = QStringLiteral("http://localhost:%1/page.txt").arg(m_otherPort);
        const QString line = QStringLiteral("GET ") + url;
        const CurlResult approved = curl({url});
        QCOMPARE(approved.status, QByteArray("200"));
        QCOMPARE(approved.body, m_page);
        QCOMPARE(asked, QStringList({line, line + QStringLiteral(" (localhost resolves to 127.0.0.1 (loopback))")}));
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Succeeded);
        QCOMPARE(newestNetworkRow().approver, QStringLiteral("alice"));

        denySecond = true;
        asked.clear();
        LogFilter networkRows;
        networkRows.sandbox = kWorkspace;
        networkRows.kind = ActionKind::Network;
        const qsizetype before = m_log->rows(networkRows, 1000)->size();
        const CurlResult denied = curl({url});
        disconnect(m_queue.get(), &ApprovalQueue::added, this, nullptr);
        QCOMPARE(asked.size(), 2);
        QCOMPARE(denied.status, QByteArray("403"));
        QCOMPARE(denied.body, QByteArray("not the host\n"));
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Denied);
        QCOMPARE(m_log->rows(networkRows, 1000)->size(), before + 1);
        QCOMPARE(newestNetworkRow().command, line + QStringLiteral(" (localhost resolves to 127.0.0.1 (loopback))"));
    }

    void nameRuleNamingTheHostReachesLoopback()
    {
        const CurlResult r = curl({QStringLiteral("http://localhost:%1/page.txt").arg(m_askedPort)});
        QCOMPARE(r.status, QByteArray("200"));
        QCOMPARE(r.body, m_page);
    }

    void tunnelWithAnotherServerNameIsClosed()
    {
        // curl sends SNI "localhost" inside a CONNECT to 127.0.0.1 (--connect-to keeps the name
        // for TLS and sends the address to the proxy).
        const CurlResult r = curl({QStringLiteral("--connect-to"),
                                   QStringLiteral("localhost:%1:127.0.0.1:%1").arg(m_allowedPort),
                                   QStringLiteral("https://localhost:%1/page.txt").arg(m_allowedPort)});
        QVERIFY(r.exitCode != 0);
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Denied);
        QCOMPARE(newestNetworkRow().error,
                 QStringLiteral("the TLS server name localhost is not the CONNECT host 127.0.0.1"));
    }

    void malformedRequestIsARowToo()
    {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_proxyPort);
        QVERIFY(socket.waitForConnected(5000));
        socket.write("GET /not-a-proxy-request HTTP/1.1\r\nHost: x\r\n\r\n");
        QByteArray reply;
        QTRY_VERIFY((reply += socket.readAll()).startsWith("HTTP/1.1 400 Bad Request\r\n"));
        QTRY_COMPARE(newestNetworkRow().outcome, Outcome::Error);
    }

    void cleanupTestCase()
    {
        m_proxy.reset();
    }
};

QTEST_GUILESS_MAIN(TestEgressProxy)
#include "tst_egressproxy.moc"
