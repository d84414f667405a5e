// The MCP tools on two libvirt hosts through the real client (the official TypeScript SDK,
// tests/mcp/client.mjs, over Streamable HTTP): the window's Workbench on qemu:///system with this
// machine's daemon added as a second host over qemu+ssh through the test's own sshd on the
// loopback (LoopbackSshd), its MCP server listening in this process. Checked: run_code and
// create_workspace offer `host`; list_workspaces lists both hosts and a workspace under each
// (one daemon: the workspace made through the remote connection is on both); run_code on the
// remote host (its pool, not the local one's, gets the next pre-booted microVM); an unknown
// host; a name that exists already; and, with the sshd killed, the remote host's error beside
// the local host's workspaces, then both hosts again once the sshd is back.

#include "LoopbackSshd.h"
#include "McpSdkClient.h"
#include "TestEnvironment.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "mcp/McpHttpTransport.h"
#include "sandbox/SandboxPool.h"
#include "workbench/Host.h"
#include "workbench/Workbench.h"
#include "workspace/Workspace.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <libvirt/libvirt.h>

namespace {

const QString kLocalUri = QStringLiteral("qemu:///system");
const QString kWorkspace = QStringLiteral("mh-remote");
const QString kDomainPrefix = QStringLiteral("sbw-ws-mh-");

const char kAllowAll[] = R"({"version": 1, "default": [{"decision": "allow"}]})";

QJsonObject structured(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject();
}

QString text(const QJsonObject& result)
{
    return result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString();
}

QString json(const QJsonObject& object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject call(const QString& tool, const QJsonObject& arguments)
{
    return {{QStringLiteral("call"), tool}, {QStringLiteral("arguments"), arguments}};
}

/// list_workspaces' entries of the test's workspace in `result`, in the order listed (the
/// daemon may hold other workspaces).
QJsonArray listedTestWorkspace(const QJsonObject& result)
{
    QJsonArray found;
    for (const QJsonValue& entry : structured(result).value(QLatin1String("workspaces")).toArray())
        if (entry.toObject().value(QLatin1String("name")).toString() == kWorkspace)
            found.append(entry);
    return found;
}

/// The test's workspace (256 MiB, not started, other settings default) as list_workspaces
/// shows it on `host`.
QJsonObject workspaceEntry(const QString& host)
{
    return {{QStringLiteral("name"), kWorkspace},        {QStringLiteral("state"), QStringLiteral("stopped")},
            {QStringLiteral("memory_mib"), 256},         {QStringLiteral("vcpus"), 1},
            {QStringLiteral("disk_gib"), 4},             {QStringLiteral("network"), QStringLiteral("none")},
            {QStringLiteral("host"), host}};
}


QJsonObject hostEntry(const QString& uri)
{
    return {{QStringLiteral("uri"), uri}};
}

} // namespace

class TestMcpHosts : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data; ///< XDG_DATA_HOME: keys, records, command log, policy, token
    sbw::test::LoopbackSshd m_sshd;
    std::unique_ptr<sbw::HypervisorConnection> m_local;
    std::unique_ptr<sbw::Workbench> m_workbench;
    sbw::Host* m_remoteHost = nullptr;
    QString m_remoteUri;
    QElapsedTimer m_elapsed;

    /// Runs the SDK client on the workbench's HTTP endpoint with `steps`; its lines after the
    /// server's info, one per step.
    QList<QJsonObject> client(const QJsonArray& steps)
    {
        const QJsonObject config{
            {QStringLiteral("transport"), QStringLiteral("http")},
            {QStringLiteral("url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_workbench->mcpHttp()->port())},
            {QStringLiteral("token"), QString::fromLatin1(m_workbench->mcpToken())}};
        return sbw::test::runSdkClientServedHere(QStringLiteral(SBW_MCP_CLIENT_DIR), config, steps);
    }

    void removeWorkspace()
    {
        if (auto old = sbw::Workspace::open(*m_local, kWorkspace))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(QStringLiteral(SBW_MCP_CLIENT_DIR "/node_modules/@modelcontextprotocol/sdk/package.json")),
                 "the MCP SDK is not installed: run `npm ci --prefix tests/mcp` (packaging/setup.sh does)");
        QVERIFY(m_data.isValid());
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        // The workbench's policy (Policy::defaultPath()): agents' calls are allowed.
        QVERIFY(QDir().mkpath(m_data.filePath(QStringLiteral("sandbox-workbench"))));
        QFile policy(m_data.filePath(QStringLiteral("sandbox-workbench/policy.json")));
        QVERIFY(policy.open(QIODevice::WriteOnly) && policy.write(kAllowAll) == qint64(sizeof kAllowAll - 1));
        policy.close();
        auto started = m_sshd.start();
        QVERIFY2(started.ok(), started ? "" : qPrintable(started.error().message));
        m_remoteUri = m_sshd.uri();
        m_local = std::make_unique<sbw::HypervisorConnection>(kLocalUri);
        QVERIFY(m_local->ensureOpen().ok());
        removeWorkspace(); // left by an earlier run that did not finish

        // The window's arrangement: the first host, then File ▸ Add Connection….
        m_workbench = std::make_unique<sbw::Workbench>(m_local.get());
        QVERIFY2(m_workbench->policyLoaded().ok(), qPrintable(m_workbench->policyLoaded().error().message));
        QVERIFY(m_workbench->tokenLoaded().ok());
        auto added = m_workbench->addHost(m_remoteUri);
        QVERIFY2(added.ok(), added ? "" : qPrintable(added.error().message));
        m_remoteHost = added.value();
        QTRY_COMPARE_WITH_TIMEOUT(m_remoteHost->connection()->state(), sbw::ConnectionState::Active, 30000);
        auto listening = m_workbench->mcpHttp()->listen(0);
        QVERIFY2(listening.ok(), listening ? "" : qPrintable(listening.error().message));

        // A workspace made through core on the remote host (defined, not started: no boot).
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        auto created = sbw::Workspace::create(*m_remoteHost->connection(), kWorkspace, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_elapsed.start();
    }

    void cleanupTestCase()
    {
        qInfo("cases took %lld ms", m_elapsed.elapsed());
        m_workbench.reset(); // its hosts' pools destroy their microVMs
        if (!m_local)
            return;
        // The remote host is this machine's daemon: the local connection removes the workspace,
        // also when a case failed with the remote host lost.
        removeWorkspace();
        QCOMPARE(sbw::test::leftovers(kLocalUri, kDomainPrefix), QStringList());
        QCOMPARE(sbw::test::runDomains(kLocalUri), QStringList());
        QCOMPARE(sbw::test::runOverlays(kLocalUri), QStringList());
        m_sshd.kill();
    }

    /// tools/list through the SDK: run_code and create_workspace take an optional `host`.
    void toolsTakeAHost()
    {
        const QList<QJsonObject> results = client({QJsonObject{{QStringLiteral("schemas"), true}}});
        QCOMPARE(results.size(), 1);
        const QJsonObject schemas = results[0].value(QLatin1String("inputSchemas")).toObject();
        const QJsonObject host{
            {QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("description"),
             QStringLiteral("libvirt connection URI of the host to use, one of the workbench's connections "
                            "(list_workspaces shows them); default: the first.")}};
        for (const QString& tool : {QStringLiteral("run_code"), QStringLiteral("create_workspace")}) {
            const QJsonObject schema = schemas.value(tool).toObject();
            QCOMPARE(schema.value(QLatin1String("properties")).toObject().value(QLatin1String("host")).toObject(), host);
            QVERIFY2(!schema.value(QLatin1String("required")).toArray().contains(QStringLiteral("host")),
                     qPrintable(tool));
        }
    }

    /// Both hosts, in order, without errors; the workspace made through the remote connection
    /// under both (one daemon), the first host's entry first.
    void listsEveryHost()
    {
        const QList<QJsonObject> results = client({call(QStringLiteral("list_workspaces"), {})});
        QCOMPARE(results.size(), 1);
        QVERIFY2(!results[0].value(QLatin1String("isError")).toBool(), qPrintable(text(results[0])));
        QCOMPARE(structured(results[0]).value(QLatin1String("hosts")).toArray(),
                 (QJsonArray{hostEntry(kLocalUri), hostEntry(m_remoteUri)}));
        QCOMPARE(listedTestWorkspace(results[0]), (QJsonArray{workspaceEntry(kLocalUri), workspaceEntry(m_remoteUri)}));
    }

    /// run_code with the remote host: its output and status, and the remote host's pool boots
    /// the next microVM after it (the pool refills after a run that took from it), the local
    /// host's pool none.
    void runCodeOnTheRemoteHost()
    {
        const std::shared_ptr<sbw::SandboxPool> remotePool = m_remoteHost->sandboxPool();
        const std::shared_ptr<sbw::SandboxPool> localPool = m_workbench->sandboxPool();
        QVERIFY(remotePool != localPool);
        QCOMPARE(remotePool->readyCount(), 0);
        QCOMPARE(localPool->readyCount(), 0);
        QElapsedTimer timer;
        timer.start();
        const QList<QJsonObject> results =
            client({call(QStringLiteral("run_code"),
                         {{QStringLiteral("language"), QStringLiteral("sh")},
                          {QStringLiteral("code"), QStringLiteral("echo remote $((6*7)); echo to stderr >&2; exit 3")},
                          {QStringLiteral("host"), m_remoteUri}})});
        qInfo("run_code on the remote host answered in %lld ms", timer.elapsed());
        QCOMPARE(results.size(), 1);
        QVERIFY2(!results[0].value(QLatin1String("isError")).toBool(), qPrintable(json(results[0])));
        const QJsonObject run = structured(results[0]);
        QCOMPARE(run.value(QLatin1String("stdout")).toString(), QStringLiteral("remote 42\n"));
        QCOMPARE(run.value(QLatin1String("stderr")).toString(), QStringLiteral("to stderr\n"));
        QCOMPARE(run.value(QLatin1String("exit_status")).toInt(-1), 3);
        QVERIFY(run.value(QLatin1String("signal")).isNull());
        QCOMPARE(run.value(QLatin1String("timed_out")).toBool(true), false);

        QTRY_COMPARE_WITH_TIMEOUT(remotePool->readyCount(), 1, 300000);
        qInfo("the remote host's pool had its microVM %lld ms after the call", timer.elapsed());
        QCOMPARE(localPool->readyCount(), 0);
        // Its microVM goes now, before the sshd is killed (a lost pool leaves its overlay).
        remotePool->setSize(0);
        QCOMPARE(remotePool->readyCount(), 0);
        QCOMPARE(sbw::test::runDomains(kLocalUri), QStringList());
    }

    void unknownHost()
    {
        const QList<QJsonObject> results =
            client({call(QStringLiteral("run_code"), {{QStringLiteral("language"), QStringLiteral("sh")},
                                                      {QStringLiteral("code"), QStringLiteral("true")},
                                                      {QStringLiteral("host"), QStringLiteral("qemu+ssh://nowhere/system")}})});
        QCOMPARE(results.size(), 1);
        QCOMPARE(results[0].value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(text(results[0]), QStringLiteral("no host qemu+ssh://nowhere/system; the hosts are: qemu:///system, ") + m_remoteUri);
    }

    /// A name the daemon has: refused, naming the first host that has it (the local one: one
    /// daemon behind both), although the call asked for the remote host.
    void createRefusesAnExistingName()
    {
        const QList<QJsonObject> results =
            client({call(QStringLiteral("create_workspace"),
                         {{QStringLiteral("name"), kWorkspace}, {QStringLiteral("host"), m_remoteUri}})});
        QCOMPARE(results.size(), 1);
        QCOMPARE(results[0].value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(text(results[0]), QStringLiteral("workspace 'mh-remote' exists already on qemu:///system"));
    }

    /// With the sshd killed list_workspaces still answers: the remote host with its error, the
    /// local host's workspaces. With the sshd back both hosts answer again.
    void lostHostIsAnError()
    {
        sbw::HypervisorConnection* remote = m_remoteHost->connection();
        QSignalSpy disconnected(remote, &sbw::HypervisorConnection::disconnected);
        m_sshd.kill();
        QTRY_COMPARE_WITH_TIMEOUT(disconnected.size(), 1, 20000);
        QList<QJsonObject> results = client({call(QStringLiteral("list_workspaces"), {})});
        QCOMPARE(results.size(), 1);
        QVERIFY2(!results[0].value(QLatin1String("isError")).toBool(), qPrintable(text(results[0])));
        const QJsonArray hosts = structured(results[0]).value(QLatin1String("hosts")).toArray();
        QCOMPARE(hosts.size(), 2);
        QCOMPARE(hosts[0].toObject(), hostEntry(kLocalUri));
        const QJsonObject lost = hosts[1].toObject();
        QCOMPARE(lost.keys(), (QStringList{QStringLiteral("error"), QStringLiteral("uri")}));
        QCOMPARE(lost.value(QLatin1String("uri")).toString(), m_remoteUri);
        // libvirt's own words between the two depend on whether it wrote before ssh exited
        // ("Cannot recv data: …: Connection reset by peer"); ssh's are the same each time.
        const QString error = lost.value(QLatin1String("error")).toString();
        QVERIFY2(error.startsWith(QStringLiteral("cannot connect to libvirt at %1: ").arg(m_remoteUri)), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("ssh: connect to host 127.0.0.1 port %1: Connection refused")
                                    .arg(QUrl(m_remoteUri).port())),
                 qPrintable(error));
        QCOMPARE(listedTestWorkspace(results[0]), QJsonArray{workspaceEntry(kLocalUri)});

        auto restarted = m_sshd.start();
        QVERIFY2(restarted.ok(), restarted ? "" : qPrintable(restarted.error().message));
        results = client({call(QStringLiteral("list_workspaces"), {})});
        QCOMPARE(results.size(), 1);
        QCOMPARE(structured(results[0]).value(QLatin1String("hosts")).toArray(),
                 (QJsonArray{hostEntry(kLocalUri), hostEntry(m_remoteUri)}));
        QCOMPARE(listedTestWorkspace(results[0]), (QJsonArray{workspaceEntry(kLocalUri), workspaceEntry(m_remoteUri)}));
    }
};

QTEST_GUILESS_MAIN(TestMcpHosts)
#include "tst_mcphosts.moc"
