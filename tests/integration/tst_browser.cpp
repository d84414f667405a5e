// Also runs over qemu+ssh: ctest's tst_browser_remote (SBW_TEST_REMOTE=1, GuestHost.h).
// A workspace's browser driven by agents: the official MCP TypeScript SDK (tests/mcp/client.mjs)
// over `sbw mcp` (stdio) against real guests made from the `browser` image. One workspace
// without network opens a form the test put in the guest, types, clicks, reads the result
// back exactly and takes a screenshot; a second, with an allowlist network, opens a page the
// test serves on the host (allowed by a network rule) and sees the proxy refuse another. A
// browse rule that asks makes navigation wait for a person (the window's gate and queue, in
// this process), and a denial returns the reason. Every step is a command-log row with the
// page's address before and after it.
#include "GatedMcpServer.h"
#include "GuestHost.h"
#include "McpSdkClient.h"
#include "LoopbackHttpServer.h"
#include "TestEnvironment.h"
#include "approval/Policy.h"
#include "browser/BrowserHold.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "workspace/Workspace.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

namespace {

const QString kPlain = QStringLiteral("browser-test");
const QString kAllowlist = QStringLiteral("browser-net-test");

/// The form: a field and a button whose click writes a greeting into the page; the page
/// writes its own viewport size, to compare with the screenshot.
const QByteArray kForm = R"(<!doctype html><html><head><title>Form</title></head><body>
<label>Name <input id="name"></label>
<button id="send" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value + '!'">Send</button>
<p id="out"></p>
<p id="size"></p>
<script>document.getElementById('size').textContent = 'viewport ' + innerWidth + 'x' + innerHeight;</script>
</body></html>
)";

QJsonObject structured(const QJsonObject& result)
{
    return result.value(QLatin1String("structuredContent")).toObject();
}

QString text(const QJsonObject& result)
{
    return result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString();
}

QJsonObject call(const QString& tool, QJsonObject arguments, const QString& workspace)
{
    arguments.insert(QStringLiteral("workspace"), workspace);
    return {{QStringLiteral("call"), tool}, {QStringLiteral("arguments"), arguments}};
}

/// Width and height from a PNG's IHDR chunk; 0 × 0 when it is not a PNG.
std::pair<int, int> pngSize(const QByteArray& png)
{
    if (png.size() < 24 || !png.startsWith("\x89PNG\r\n\x1a\n") || png.mid(12, 4) != "IHDR")
        return {0, 0};
    return {int(qFromBigEndian<quint32>(png.constData() + 16)), int(qFromBigEndian<quint32>(png.constData() + 20))};
}

} // namespace

class TestBrowser : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    QTemporaryDir m_site;
    sbw::test::LoopbackHttpServers m_servers;
    quint16 m_allowedPort = 0;
    quint16 m_deniedPort = 0;
    sbw::test::GuestHost m_host; ///< before the connection: a remote host's sshd outlives it
    std::unique_ptr<sbw::HypervisorConnection> m_connection;

    QString policyPath() const { return m_data.filePath(QStringLiteral("policy.json")); }

    /// Runs the SDK client over `sbw mcp --policy policy.json --connect URI` (the test's host)
    /// with `steps`; returns its JSON lines after the first (the server's info), one per step.
    QList<QJsonObject> client(const QJsonArray& steps)
    {
        const QJsonObject config{{QStringLiteral("transport"), QStringLiteral("stdio")},
                                 {QStringLiteral("command"), QStringLiteral(SBW_CLI_PATH)},
                                 {QStringLiteral("args"), QJsonArray{QStringLiteral("mcp"), QStringLiteral("--policy"), policyPath(),
                                                                     QStringLiteral("--connect"), m_connection->uri()}}};
        return sbw::test::runSdkClient(QStringLiteral(SBW_MCP_CLIENT_DIR), config, steps);
    }

    void removeWorkspace(const QString& name)
    {
        if (auto old = sbw::Workspace::open(*m_connection, name))
            QVERIFY(old.value()->remove().ok());
    }

    /// Creates and starts workspace `name` from the browser image.
    void createWorkspace(const QString& name, sbw::WorkspaceNetwork network)
    {
        sbw::WorkspaceSettings settings;
        settings.recipe = QStringLiteral("browser");
        settings.memoryMiB = 1024; // Chromium and its renderer (512 MiB suspected too little)
        settings.network = network;
        auto created = sbw::Workspace::create(*m_connection, name, settings);
        QVERIFY2(created.ok(), qPrintable(created ? QString() : created.error().message));
        QVERIFY(created.value()->start().ok());
    }

    /// The browse rows of `sandbox` in the log the programs under test write, oldest first.
    QList<sbw::ActionRecord> browseRows(const QString& sandbox)
    {
        auto log = sbw::CommandLog::open(sbw::CommandLog::defaultPath());
        if (!log)
            return {};
        sbw::LogFilter filter;
        filter.sandbox = sandbox;
        filter.kind = sbw::ActionKind::Browse;
        auto rows = log.value()->rows(filter);
        QList<sbw::ActionRecord> oldestFirst;
        for (const sbw::ActionRecord& row : rows.value())
            oldestFirst.prepend(row);
        return oldestFirst;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(QStringLiteral(SBW_MCP_CLIENT_DIR "/node_modules/@modelcontextprotocol/sdk/package.json")),
                 "the MCP SDK is not installed: run `npm ci --prefix tests/mcp` (packaging/setup.sh does)");
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        // The site on the host: an allowed page and one on a port the network rules deny.
        QFile page(m_site.filePath(QStringLiteral("index.html")));
        QVERIFY(page.open(QIODevice::WriteOnly));
        page.write("<!doctype html><title>Host page</title><p>served by the host</p>\n");
        page.close();
        m_allowedPort = m_servers.start(m_site.path());
        m_deniedPort = m_servers.start(m_site.path());
        QVERIFY(m_allowedPort && m_deniedPort);
        // The host's name leads to its loopback: only a rule naming it exactly lets it through,
        // and Chromium sends every name but localhost through the proxy.
        const QString host = QHostInfo::localHostName();
        const QByteArray policy = QStringLiteral(R"({"version": 1, "default": [
          {"kinds": ["browse"], "pattern": "*forbidden*", "decision": "deny"},
          {"kinds": ["network"], "pattern": "%1", "ports": [%2], "decision": "allow"},
          {"kinds": ["network"], "pattern": "%1", "ports": [%3], "decision": "deny"},
          {"pattern": "*", "decision": "allow"}
        ]})").arg(host).arg(m_allowedPort).arg(m_deniedPort).toUtf8();
        QFile file(policyPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(policy);
        file.close();
        const auto uri = m_host.start();
        QVERIFY2(uri.ok(), uri ? "" : qPrintable(uri.error().message));
        m_connection = std::make_unique<sbw::HypervisorConnection>(uri.value());
        const auto opened = m_connection->ensureOpen();
        QVERIFY2(opened.ok(), opened ? "" : qPrintable(opened.error().message));
        removeWorkspace(kPlain);
        removeWorkspace(kAllowlist);
        createWorkspace(kPlain, sbw::WorkspaceNetwork::None);
        auto workspace = sbw::Workspace::open(*m_connection, kPlain);
        QVERIFY(workspace.ok());
        sbw::ExecRequest put;
        put.command = "cat >/root/form.html";
        put.stdinData = kForm;
        auto status = workspace.value()->exec(put, std::chrono::steady_clock::now() + std::chrono::seconds(120));
        QVERIFY(status.ok() && status.value().exitStatus == 0);
    }

    void cleanupTestCase()
    {
        if (!m_connection)
            return;
        removeWorkspace(kPlain);
        removeWorkspace(kAllowlist);
    }

    /// The issue's story: open the form, type, click, read the greeting back exactly, take a
    /// screenshot of the page's size; every step a row with the page before and after.
    void agentFillsInAFormAndReadsTheResult()
    {
        const QString form = QStringLiteral("file:///root/form.html");
        const QList<QJsonObject> results = client({
            call(QStringLiteral("browser_navigate"), {{QStringLiteral("url"), form}}, kPlain),
            call(QStringLiteral("browser_text"), {}, kPlain),
            call(QStringLiteral("browser_type"), {{QStringLiteral("text"), QStringLiteral("Ada")}, {QStringLiteral("ref"), QStringLiteral("e1")}}, kPlain),
            call(QStringLiteral("browser_click"), {{QStringLiteral("ref"), QStringLiteral("e2")}}, kPlain),
            call(QStringLiteral("browser_text"), {}, kPlain),
            call(QStringLiteral("browser_screenshot"), {}, kPlain),
            call(QStringLiteral("browser_click"), {{QStringLiteral("ref"), QStringLiteral("e9")}}, kPlain),
        });
        QCOMPARE(results.size(), 7);
        for (int i = 0; i < 6; ++i)
            QVERIFY2(!results[i].value(QLatin1String("isError")).toBool(), qPrintable(text(results[i])));
        QCOMPARE(structured(results[0]).value(QLatin1String("url")).toString(), form);
        QCOMPARE(structured(results[0]).value(QLatin1String("title")).toString(), QStringLiteral("Form"));
        QCOMPARE(structured(results[1]).value(QLatin1String("text")).toString(),
                 QStringLiteral("Name\n[e1] input text \"\"\n[e2] button \"Send\"\nviewport 1280x800"));
        QCOMPARE(structured(results[4]).value(QLatin1String("text")).toString(),
                 QStringLiteral("Name\n[e1] input text \"\" value=\"Ada\"\n[e2] button \"Send\"\nHello, Ada!\nviewport 1280x800"));

        // The screenshot: MCP image content, a PNG of the page's viewport (1280 × 800).
        const QJsonObject image = results[5].value(QLatin1String("content")).toArray().at(1).toObject();
        QCOMPARE(image.value(QLatin1String("type")).toString(), QStringLiteral("image"));
        QCOMPARE(image.value(QLatin1String("mimeType")).toString(), QStringLiteral("image/png"));
        const QByteArray png = QByteArray::fromBase64(image.value(QLatin1String("data")).toString().toLatin1());
        QCOMPARE(pngSize(png), std::make_pair(1280, 800));
        QCOMPARE(structured(results[5]).value(QLatin1String("width")).toInt(), 1280);
        QCOMPARE(structured(results[5]).value(QLatin1String("height")).toInt(), 800);

        // A reference the page does not have: a clear error, nothing clicked.
        QVERIFY(results[6].value(QLatin1String("isError")).toBool());
        QCOMPARE(text(results[6]), QStringLiteral("no visible element has reference e9 (read the page again with browser_text)"));

        // The log: one row per step, with the step, the page before and after, and the
        // screenshot kept beside the log.
        const QList<sbw::ActionRecord> rows = browseRows(kPlain);
        QStringList story;
        for (const sbw::ActionRecord& row : rows)
            story << QStringLiteral("%1 | %2 | %3 -> %4").arg(row.command, sbw::outcomeName(row.outcome), row.urlBefore, row.urlAfter);
        QCOMPARE(story, QStringList({
                            QStringLiteral("navigate %1 | succeeded | about:blank -> %1").arg(form),
                            QStringLiteral("read text on %1 | succeeded | %1 -> %1").arg(form),
                            QStringLiteral("type \"Ada\" into e1 on %1 | succeeded | %1 -> %1").arg(form),
                            QStringLiteral("click e2 on %1 | succeeded | %1 -> %1").arg(form),
                            QStringLiteral("read text on %1 | succeeded | %1 -> %1").arg(form),
                            QStringLiteral("screenshot on %1 | succeeded | %1 -> %1").arg(form),
                            QStringLiteral("click e9 on %1 | error |  -> ").arg(form),
                        }));
        QFile kept(rows.at(5).artifactsDir + QStringLiteral("/screenshot.png"));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), png);
        QCOMPARE(rows.at(0).actor.kind, sbw::Actor::Kind::Agent);
        QCOMPARE(rows.at(0).actor.name, QStringLiteral("sbw-test-client"));
    }

    /// A person holding the browser in a window (this process, as the window would) refuses the
    /// steps of an agent in another program (`sbw mcp`), each a denied row; handed back, the
    /// agent's steps run again.
    void heldBrowserRefusesAnotherProgramsAgent()
    {
        const QString form = QStringLiteral("file:///root/form.html");
        QVERIFY(sbw::browser_hold::take(kPlain, QStringLiteral("alice")).ok());
        const QList<QJsonObject> refused = client({
            call(QStringLiteral("browser_navigate"), {{QStringLiteral("url"), form}}, kPlain),
            call(QStringLiteral("browser_click"), {{QStringLiteral("ref"), QStringLiteral("e2")}}, kPlain),
        });
        sbw::browser_hold::release(kPlain);
        QCOMPARE(refused.size(), 2);
        const QString why = QStringLiteral("alice has taken over the browser in the window; browser steps are refused "
                                           "until they hand it back");
        for (const QJsonObject& result : refused) {
            QVERIFY(result.value(QLatin1String("isError")).toBool());
            QCOMPARE(text(result), QStringLiteral("denied: ") + why);
        }
        const QList<QJsonObject> after = client({call(QStringLiteral("browser_text"), {}, kPlain)});
        QCOMPARE(after.size(), 1);
        QVERIFY2(!after[0].value(QLatin1String("isError")).toBool(), qPrintable(text(after[0])));

        const QList<sbw::ActionRecord> rows = browseRows(kPlain);
        QStringList story;
        for (const sbw::ActionRecord& row : rows.mid(rows.size() - 3))
            story << QStringLiteral("%1 | %2 | %3 -> %4 | %5")
                         .arg(row.command, sbw::outcomeName(row.outcome), row.urlBefore, row.urlAfter, row.error);
        QCOMPARE(story, QStringList({
                            QStringLiteral("navigate %1 | denied |  ->  | %2").arg(form, why),
                            QStringLiteral("click e2 on %1 | denied | %1 -> %1 | %2").arg(form, why),
                            QStringLiteral("read text on %1 | succeeded | %1 -> %1 | ").arg(form),
                        }));
    }

    /// A browse rule that denies: the agent reads the rule, and the page stays where it was.
    void deniedAddressNeverLoads()
    {
        const QList<QJsonObject> results = client({
            call(QStringLiteral("browser_navigate"), {{QStringLiteral("url"), QStringLiteral("file:///root/forbidden.html")}}, kPlain),
            call(QStringLiteral("browser_text"), {}, kPlain),
        });
        QCOMPARE(results.size(), 2);
        QVERIFY(results[0].value(QLatin1String("isError")).toBool());
        // The same form as every tool's denial: "denied: " and the reason (tst_mcp).
        QCOMPARE(text(results[0]), QStringLiteral("denied: denied by policy rule 1 (browse \"*forbidden*\")"));
        QCOMPARE(structured(results[1]).value(QLatin1String("url")).toString(), QStringLiteral("file:///root/form.html"));
        const sbw::ActionRecord denied = browseRows(kPlain).at(browseRows(kPlain).size() - 2);
        QCOMPARE(denied.command, QStringLiteral("navigate file:///root/forbidden.html"));
        QCOMPARE(denied.outcome, sbw::Outcome::Denied);
    }

    /// A browse rule that asks: the navigation waits in the queue until a person decides;
    /// approved it loads, denied the agent reads the person's reason.
    void askedNavigationWaitsForAPerson()
    {
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("asked-log.sqlite")));
        QVERIFY(log.ok());
        auto policy = sbw::Policy::parse(R"({"version": 1, "default": [
            {"kinds": ["browse"], "pattern": "file:///root/*", "decision": "ask"}, {"decision": "allow"}]})",
                                         QStringLiteral("policy"));
        QVERIFY(policy.ok());
        sbw::test::GatedMcpServer mcp(m_connection.get(), policy.value(), log.value());
        mcp.initialize(QStringLiteral("asker"));
        QVERIFY(mcp.answer);
        const auto navigate = [&](int id) {
            mcp.call(id, QStringLiteral("browser_navigate"),
                     {{QStringLiteral("workspace"), kPlain}, {QStringLiteral("url"), QStringLiteral("file:///root/form.html")}});
        };
        navigate(2);
        QTRY_COMPARE_WITH_TIMEOUT(mcp.queue.pending().size(), 1, 10000);
        QCOMPARE(mcp.queue.pending().at(0).request.command, QStringLiteral("navigate file:///root/form.html"));
        QTest::qWait(300);
        QVERIFY(!mcp.answer);
        QVERIFY(mcp.queue.deny(mcp.queue.pending().at(0).id, QStringLiteral("alice"), QStringLiteral("not that page")));
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 10000);
        QCOMPARE(text(*mcp.answer), QStringLiteral("denied: not that page"));

        navigate(3);
        QTRY_COMPARE_WITH_TIMEOUT(mcp.queue.pending().size(), 1, 10000);
        QVERIFY(mcp.queue.approve(mcp.queue.pending().at(0).id, QStringLiteral("alice")));
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 240000);
        QVERIFY2(!mcp.answer->value(QLatin1String("isError")).toBool(), qPrintable(text(*mcp.answer)));
        QCOMPARE(structured(*mcp.answer).value(QLatin1String("title")).toString(), QStringLiteral("Form"));
    }

    /// The page's renderer killed between two steps (as the kernel's OOM killer would): the
    /// next step fails at once with why, not after the 90 s a command may take, and the step
    /// after it works on a new page.
    void killedPageFailsTheNextStepAtOnce()
    {
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("killed-log.sqlite")));
        QVERIFY(log.ok());
        auto policy = sbw::Policy::parse(R"({"version": 1, "default": [{"decision": "allow"}]})", QStringLiteral("policy"));
        QVERIFY(policy.ok());
        sbw::test::GatedMcpServer mcp(m_connection.get(), policy.value(), log.value());
        mcp.initialize(QStringLiteral("crasher"));
        QVERIFY(mcp.answer);
        const QString form = QStringLiteral("file:///root/form.html");
        mcp.call(2, QStringLiteral("browser_navigate"), {{QStringLiteral("workspace"), kPlain}, {QStringLiteral("url"), form}});
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 240000);
        QVERIFY2(!mcp.answer->value(QLatin1String("isError")).toBool(), qPrintable(text(*mcp.answer)));

        // The pattern's brackets keep pkill from matching the shell that runs it.
        auto workspace = sbw::Workspace::open(*m_connection, kPlain);
        QVERIFY(workspace.ok());
        sbw::ExecRequest kill;
        kill.command = "pkill -f -- '--type=[r]enderer'";
        auto killed = workspace.value()->exec(kill, std::chrono::steady_clock::now() + std::chrono::seconds(120));
        QVERIFY(killed.ok());
        QCOMPARE(killed.value().exitStatus, 0);

        QElapsedTimer clock;
        clock.start();
        mcp.call(3, QStringLiteral("browser_text"), {{QStringLiteral("workspace"), kPlain}});
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 240000);
        const qint64 failedAfter = clock.elapsed();
        QVERIFY(mcp.answer->value(QLatin1String("isError")).toBool());
        QCOMPARE(text(*mcp.answer), QStringLiteral("the page crashed (out of memory?)"));
        qInfo("the step after the kill failed after %lld ms", failedAfter);
        QVERIFY2(failedAfter < 30000, qPrintable(QString::number(failedAfter)));

        clock.restart();
        mcp.call(4, QStringLiteral("browser_navigate"), {{QStringLiteral("workspace"), kPlain}, {QStringLiteral("url"), form}});
        QTRY_VERIFY_WITH_TIMEOUT(mcp.answer.has_value(), 240000);
        qInfo("the step after that took %lld ms", clock.elapsed());
        QVERIFY2(!mcp.answer->value(QLatin1String("isError")).toBool(), qPrintable(text(*mcp.answer)));
        QCOMPARE(structured(*mcp.answer).value(QLatin1String("url_before")).toString(), QStringLiteral("about:blank"));
        QCOMPARE(structured(*mcp.answer).value(QLatin1String("title")).toString(), QStringLiteral("Form"));
    }

    /// With an allowlist network the browser's requests pass the egress proxy: a page on the
    /// host that a rule allows opens; one on a denied port shows the proxy's refusal, and the
    /// connection is a network row.
    void allowlistBrowserGoesThroughTheProxy()
    {
        createWorkspace(kAllowlist, sbw::WorkspaceNetwork::Allowlist);
        const QString host = QHostInfo::localHostName();
        const QString allowed = QStringLiteral("http://%1:%2/").arg(host).arg(m_allowedPort);
        const QString denied = QStringLiteral("http://%1:%2/").arg(host).arg(m_deniedPort);
        const QList<QJsonObject> results = client({
            call(QStringLiteral("browser_navigate"), {{QStringLiteral("url"), allowed}}, kAllowlist),
            call(QStringLiteral("browser_text"), {}, kAllowlist),
            call(QStringLiteral("browser_navigate"), {{QStringLiteral("url"), denied}}, kAllowlist),
            call(QStringLiteral("browser_text"), {}, kAllowlist),
        });
        QCOMPARE(results.size(), 4);
        QVERIFY2(!results[0].value(QLatin1String("isError")).toBool(), qPrintable(text(results[0])));
        QCOMPARE(structured(results[0]).value(QLatin1String("title")).toString(), QStringLiteral("Host page"));
        QCOMPARE(structured(results[1]).value(QLatin1String("text")).toString(), QStringLiteral("served by the host"));
        const QString refusal = structured(results[3]).value(QLatin1String("text")).toString();
        QVERIFY2(refusal.contains(QStringLiteral("denied by policy rule 3")), qPrintable(refusal));

        auto log = sbw::CommandLog::open(sbw::CommandLog::defaultPath());
        QVERIFY(log.ok());
        sbw::LogFilter filter;
        filter.sandbox = kAllowlist;
        filter.kind = sbw::ActionKind::Network;
        const auto rows = log.value()->rows(filter);
        QVERIFY(rows.ok());
        QStringList connections;
        for (const sbw::ActionRecord& row : rows.value())
            connections.prepend(QStringLiteral("%1 %2").arg(row.command, sbw::outcomeName(row.outcome)));
        QVERIFY2(connections.contains(QStringLiteral("GET %1 succeeded").arg(allowed)), qPrintable(connections.join(QLatin1Char('\n'))));
        QVERIFY2(connections.contains(QStringLiteral("GET %1 denied").arg(denied)), qPrintable(connections.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestBrowser)
#include "tst_browser.moc"
