// Also runs over qemu+ssh: ctest's tst_egress_remote (SBW_TEST_REMOTE=1, GuestHost.h).
// The allowlist network on a real guest: the workspace has no interface but lo; a program in it
// reaches HTTP servers on the host's loopback only through the egress proxy (over the SSH
// session); a rule allows one port, another is denied with 403 and a row, an unlisted one waits
// for a person and goes through once approved, "allow always" writes the rule so the next
// attempt is not asked, a name that leads to loopback is refused, and pip installs a package
// from a simple index only while a rule allows that index.

#include "GuestHost.h"
#include "LoopbackHttpServer.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "approval/ApprovalQueue.h"
#include "approval/PolicyGate.h"
#include "egress/EgressProxy.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "workspace/Workspace.h"
#include "network/GuestEgress.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>


#include <future>

using namespace sbw;

namespace {

const QString kName = QStringLiteral("test-egress");

} // namespace

class TestEgress : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    QTemporaryDir m_site;
    test::GuestHost m_host; ///< before the connection: a remote host's sshd outlives it
    std::unique_ptr<HypervisorConnection> m_connection;
    std::unique_ptr<Workspace> m_workspace;
    std::shared_ptr<CommandLog> m_log;
    std::unique_ptr<ApprovalQueue> m_queue;
    std::unique_ptr<PolicyGate> m_gate;
    std::unique_ptr<EgressProxy> m_proxy;
    test::LoopbackHttpServers m_servers;
    quint16 m_allowedPort = 0;
    quint16 m_deniedPort = 0;
    quint16 m_askedPort = 0;
    quint16 m_indexPort = 0;
    QByteArray m_page;

    /// Fetches http://HOST:PORT/page.txt in the guest through the proxy (named explicitly, and
    /// without NO_PROXY, which sends 127.0.0.1 and localhost direct, where nothing listens). Prints "STATUS SHA256"
    /// or "STATUS BODY" for an error. Runs on a worker thread so the test's event loop (where
    /// the proxy asks the gate) keeps turning.
    QByteArray fetch(const QString& host, quint16 port, Workspace* in = nullptr)
    {
        const QString program = QStringLiteral(
            "import hashlib, urllib.request, urllib.error\n"
            "opener = urllib.request.build_opener(urllib.request.ProxyHandler({'http': 'http://127.0.0.1:%1'}))\n"
            "try:\n"
            "    body = opener.open('http://%2:%3/page.txt', timeout=120).read()\n"
            "    print(200, hashlib.sha256(body).hexdigest())\n"
            "except urllib.error.HTTPError as e:\n"
            "    print(e.code, e.read().decode().strip())\n")
                                    .arg(guest_egress::kGuestPort)
                                    .arg(host)
                                    .arg(port);
        return inGuest(QStringLiteral("env -u NO_PROXY -u no_proxy python3 -c \"$(cat <<'EOF'\n%1EOF\n)\"").arg(program),
                       in);
    }

    QByteArray inGuest(const QString& command, Workspace* in = nullptr)
    {
        Workspace& workspace = in ? *in : *m_workspace;
        auto future = std::async(std::launch::async, [&] { return test::shellOutput(workspace, command); });
        if (!QTest::qWaitFor([&] { return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
                             300000))
            return "<the guest did not answer within 300 s>";
        return future.get();
    }

    ActionRecord newestRow()
    {
        LogFilter filter;
        filter.sandbox = kName;
        const auto rows = m_log->rows(filter, 1);
        return rows && !rows->isEmpty() ? rows->first() : ActionRecord{};
    }

    void removeLeftover()
    {
        if (auto old = Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        m_page = "allowed page\n" + QByteArray(200000, 'p') + '\n';
        QFile page(m_site.filePath(QStringLiteral("page.txt")));
        QVERIFY(page.open(QIODevice::WriteOnly) && page.write(m_page) == m_page.size());
        page.close();
        QVERIFY(test::writeSimpleIndex(m_site.path()));
        m_allowedPort = m_servers.start(m_site.path());
        m_deniedPort = m_servers.start(m_site.path());
        m_askedPort = m_servers.start(m_site.path());
        m_indexPort = m_servers.start(m_site.path());
        QVERIFY(m_allowedPort && m_deniedPort && m_askedPort && m_indexPort);

        m_log = CommandLog::open(m_data.filePath(QStringLiteral("log.sqlite"))).value();
        Policy policy;
        policy.workspaceRules[kName] = {
            test::networkRule(QStringLiteral("127.0.0.1"), {m_allowedPort}, PolicyDecision::Allow),
            test::networkRule(QStringLiteral("127.0.0.1"), {m_deniedPort}, PolicyDecision::Deny),
            test::networkRule(QStringLiteral("*"), {m_indexPort}, PolicyDecision::Allow),
        };
        m_queue = std::make_unique<ApprovalQueue>();
        m_gate = std::make_unique<PolicyGate>(policy, m_log);
        m_gate->setApprovalQueue(m_queue.get());
        m_proxy = std::make_unique<EgressProxy>(m_gate.get(), m_log);
        m_proxy->acceptGuestConnections();

        const auto uri = m_host.start();
        QVERIFY2(uri.ok(), uri ? "" : qPrintable(uri.error().message));
        m_connection = std::make_unique<HypervisorConnection>(uri.value());
        const auto opened = m_connection->ensureOpen();
        QVERIFY2(opened.ok(), opened ? "" : qPrintable(opened.error().message));
        removeLeftover();
        WorkspaceSettings settings;
        settings.memoryMiB = 384;
        settings.network = WorkspaceNetwork::Allowlist;
        auto created = Workspace::create(*m_connection, kName, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_workspace = std::move(created.value());
        QVERIFY(m_workspace->start().ok());
    }

    void guestHasOnlyLoopback()
    {
        QCOMPARE(inGuest(QStringLiteral("ls /sys/class/net")), QByteArray("lo\n"));
        QCOMPARE(m_workspace->record().settings.network, WorkspaceNetwork::Allowlist);
    }

    void commandsGetTheProxyVariables()
    {
        QCOMPARE(inGuest(QStringLiteral("echo $HTTPS_PROXY $http_proxy $NO_PROXY")),
                 QByteArray("http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.1\n"));
        // Login shells (terminal tabs) read it from /etc/profile.d.
        QCOMPARE(inGuest(QStringLiteral("env -i sh -lc 'echo $HTTP_PROXY'")), QByteArray("http://127.0.0.1:3128\n"));
    }

    void allowedPortServesThePage()
    {
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_allowedPort),
                 "200 " + QCryptographicHash::hash(m_page, QCryptographicHash::Sha256).toHex() + '\n');
        QTRY_COMPARE(newestRow().outcome, Outcome::Succeeded);
        const ActionRecord row = newestRow();
        QCOMPARE(row.kind, ActionKind::Network);
        QCOMPARE(row.actor.kind, Actor::Kind::Guest);
        QVERIFY2(row.actor.name.startsWith(QLatin1String("127.0.0.1:")), qPrintable(row.actor.name));
        QCOMPARE(row.command, QStringLiteral("GET http://127.0.0.1:%1/page.txt").arg(m_allowedPort));
        QVERIFY(row.bytesReceived > m_page.size());
    }

    void deniedPortGets403AndARow()
    {
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_deniedPort),
                 QStringLiteral("403 denied by policy rule 2 of workspace '%1' (network \"127.0.0.1\" ports %2): "
                                "127.0.0.1:%2\n")
                     .arg(kName)
                     .arg(m_deniedPort)
                     .toUtf8());
        QCOMPARE(newestRow().outcome, Outcome::Denied);
        QCOMPARE(newestRow().kind, ActionKind::Network);
    }

    void unlistedPortWaitsAndGoesThroughOnceApproved()
    {
        // The person sees which program in the guest asks: fetch()'s python3, by its pid.
        qint64 asked = 0;
        Actor askedBy;
        connect(m_queue.get(), &ApprovalQueue::added, this, [&](qint64 id) {
            asked = id;
            askedBy = m_queue->find(id)->request.actor;
            m_queue->approve(id, QStringLiteral("alice"));
        });
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_askedPort),
                 "200 " + QCryptographicHash::hash(m_page, QCryptographicHash::Sha256).toHex() + '\n');
        disconnect(m_queue.get(), &ApprovalQueue::added, this, nullptr);
        QVERIFY(asked != 0);
        QCOMPARE(askedBy.kind, Actor::Kind::Guest);
        static const QRegularExpression named(
            QStringLiteral("^python3 \\(pid \\d+, 127\\.0\\.0\\.1:\\d+\\): python3 -c import hashlib, urllib\\.request"));
        QVERIFY2(named.match(askedBy.name).hasMatch(), qPrintable(askedBy.name));
        QTRY_COMPARE(newestRow().outcome, Outcome::Succeeded);
        QCOMPARE(newestRow().approver, QStringLiteral("alice"));
        QCOMPARE(newestRow().actor.name, askedBy.name);
    }

    void allowAlwaysWritesTheRule()
    {
        // "Allow always" on the waiting connection: the rule is written to the policy file,
        // the connection goes through as approved by the person, the next one is not asked.
        const QString file = m_data.filePath(QStringLiteral("policy.json"));
        QVERIFY(m_gate->policy().save(file).ok());
        m_gate->setPolicyFile(file);
        int asked = 0;
        connect(m_queue.get(), &ApprovalQueue::added, this, [&](qint64 id) {
            ++asked;
            const auto pending = m_queue->find(id);
            QVERIFY(pending && m_gate->setDestinationRule(kName, pending->request.destination, PolicyDecision::Allow,
                                                          QStringLiteral("alice")).ok());
        });
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_askedPort).left(4), QByteArray("200 "));
        QTRY_COMPARE(newestRow().outcome, Outcome::Succeeded);
        QCOMPARE(newestRow().approval, Approval::Approved);
        QCOMPARE(newestRow().approver, QStringLiteral("alice"));
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_askedPort).left(4), QByteArray("200 "));
        disconnect(m_queue.get(), &ApprovalQueue::added, this, nullptr);
        QCOMPARE(asked, 1);
        QTRY_COMPARE(newestRow().outcome, Outcome::Succeeded);
        QCOMPARE(newestRow().approval, Approval::Auto);
        const Policy onDisk = Policy::load(file).value();
        QCOMPARE(onDisk.workspaceRules.value(kName).first(),
                 test::networkRule(QStringLiteral("127.0.0.1"), {m_askedPort}, PolicyDecision::Allow));
        m_gate->setPolicyFile({});
    }

    void proxyPortPassesBetweenSessionsOfOneProcess()
    {
        // The window and its MCP server each hold a Workspace object of one workspace, each
        // with its own SSH session; only one session can hold the guest's proxy port.
        const QByteArray served = "200 " + QCryptographicHash::hash(m_page, QCryptographicHash::Sha256).toHex() + '\n';
        auto other = Workspace::open(*m_connection, kName);
        QVERIFY(other.ok());
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
        // A short read's session (the window's uptime) does not keep the port from a lasting one.
        m_workspace->closeSession();
        {
            auto borrowed = other.value()->borrowSession(deadline);
            QVERIFY(borrowed.ok());
            QVERIFY(m_workspace->session(deadline).ok());
        }
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_allowedPort), served);
        // The holder's session ends: the other object's session, refused the port before, takes
        // it at its next command.
        auto lasting = other.value()->session(deadline);
        QVERIFY(lasting.ok());
        m_workspace->closeSession();
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_allowedPort, other.value().get()), served);
        other.value()->closeSession();
        QCOMPARE(fetch(QStringLiteral("127.0.0.1"), m_allowedPort), served);
    }

    void nameLeadingToLoopbackIsRefused()
    {
        const QByteArray reply = fetch(QStringLiteral("localhost"), m_indexPort);
        QVERIFY2(reply.startsWith("403 localhost resolves to 127.0.0.1 (loopback)"), reply.constData());
    }

    void pipInstallsFromTheAllowedIndexOnly()
    {
        // The index is reached by a name that leads to loopback: an exact rule for that name.
        Policy policy = m_gate->policy();
        policy.workspaceRules[kName].prepend(test::networkRule(QStringLiteral("localhost"), {m_indexPort}, PolicyDecision::Allow));
        m_gate->setPolicy(policy);
        const QString pip = QStringLiteral("env -u NO_PROXY -u no_proxy pip install --no-cache-dir --index-url "
                                           "http://localhost:%1/simple/ sbwdemo 2>&1 | tail -1; "
                                           "python3 -c 'import sbwdemo; print(sbwdemo.GREETING)' 2>&1 | tail -1")
                                .arg(m_indexPort);
        const QByteArray installed = inGuest(pip);
        QVERIFY2(installed.endsWith("\nhello from the allowed index\n"), installed.constData());

        policy.workspaceRules[kName].removeFirst();
        m_gate->setPolicy(policy);
        inGuest(QStringLiteral("pip uninstall -y sbwdemo >/dev/null 2>&1"));
        const QByteArray refused = inGuest(pip);
        QVERIFY2(refused.contains("No module named 'sbwdemo'"), refused.constData());
        QCOMPARE(newestRow().kind, ActionKind::Network);
        QCOMPARE(newestRow().outcome, Outcome::Denied);
        QVERIFY2(newestRow().error.startsWith(QLatin1String("localhost resolves to 127.0.0.1")),
                 qPrintable(newestRow().error));
    }

    void cleanupTestCase()
    {
        m_workspace.reset();
        if (m_connection)
            removeLeftover();
        m_proxy.reset();
    }
};

QTEST_GUILESS_MAIN(TestEgress)
#include "tst_egress.moc"
