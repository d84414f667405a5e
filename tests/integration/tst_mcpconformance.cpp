// The official MCP conformance suite (npm @modelcontextprotocol/conformance, pinned in
// tests/mcp/package.json) against `sbw serve`: every server scenario that applies to a server
// of tools and run resources on Streamable HTTP must pass; every other scenario of the suite is listed
// here with the reason it is skipped. The suite's CLI cannot send a bearer token, so it talks to
// the server through tests/mcp/bearer-proxy.mjs, which adds the token and passes Host and Origin
// on unchanged. No scenario calls a workbench tool (a policy denying everything and libvirt's
// test driver make sure no guest could start).

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kSuite = QStringLiteral(SBW_MCP_CLIENT_DIR "/node_modules/@modelcontextprotocol/conformance/dist/index.js");

const char kPolicy[] = R"({"version": 1, "default": [{"pattern": "*", "decision": "deny"}]})";

/// Every server scenario of the pinned suite, with the reason it does not apply to this server
/// (empty: it applies and must pass).
const QList<std::pair<QString, QString>> kScenarios = {
    {QStringLiteral("server-initialize"), {}},
    {QStringLiteral("ping"), {}},
    {QStringLiteral("tools-list"), {}},
    {QStringLiteral("server-sse-multiple-streams"), {}},
    {QStringLiteral("dns-rebinding-protection"), {}},
    {QStringLiteral("resources-list"), {}},
    {QStringLiteral("logging-set-level"),
     QStringLiteral("the server declares no logging capability: it sends no log notifications")},
    {QStringLiteral("completion-complete"),
     QStringLiteral("the server declares no completions capability: it has no prompts or resource templates")},
    {QStringLiteral("tools-call-simple-text"), QStringLiteral("calls the suite's own tool test_simple_text")},
    {QStringLiteral("tools-call-image"), QStringLiteral("calls the suite's own tool test_image_content")},
    {QStringLiteral("tools-call-audio"), QStringLiteral("calls the suite's own tool test_audio_content")},
    {QStringLiteral("tools-call-embedded-resource"), QStringLiteral("calls the suite's own tool test_embedded_resource")},
    {QStringLiteral("tools-call-mixed-content"), QStringLiteral("calls the suite's own tool test_multiple_content_types")},
    {QStringLiteral("tools-call-with-logging"),
     QStringLiteral("calls the suite's own tool test_tool_with_logging; the server sends no log notifications")},
    {QStringLiteral("tools-call-error"),
     QStringLiteral("calls the suite's own tool test_error_handling (an unknown tool is a JSON-RPC error, as the "
                    "specification says); tool errors are results with isError, see tst_mcp and tst_mcpserver")},
    {QStringLiteral("tools-call-with-progress"),
     QStringLiteral("calls the suite's own tool test_tool_with_progress; the server sends no progress notifications")},
    {QStringLiteral("tools-call-sampling"),
     QStringLiteral("calls the suite's own tool test_sampling; the server never asks the client to sample")},
    {QStringLiteral("tools-call-elicitation"),
     QStringLiteral("calls the suite's own tool test_elicitation; the server never elicits (approvals are the person's)")},
    {QStringLiteral("json-schema-2020-12"),
     QStringLiteral("looks for the suite's own tool json_schema_2020_12_tool")},
    {QStringLiteral("elicitation-sep1034-defaults"),
     QStringLiteral("calls the suite's own tool test_elicitation_sep1034_defaults; the server never elicits")},
    {QStringLiteral("elicitation-sep1330-enums"),
     QStringLiteral("calls the suite's own tool test_elicitation_sep1330_enums; the server never elicits")},
    {QStringLiteral("server-sse-polling"),
     QStringLiteral("calls the suite's own tool test_reconnection on an SSE stream; the server answers every POST "
                    "with JSON and offers no SSE stream, so the scenario has nothing to check")},
    {QStringLiteral("resources-read-text"),
     QStringLiteral("reads the suite's own resource test://static-text; the server's resources are the files its "
                    "runs wrote, see tst_mcpserver and tst_mcp")},
    {QStringLiteral("resources-read-binary"),
     QStringLiteral("reads the suite's own resource test://static-binary; the server's resources are the files its "
                    "runs wrote, see tst_mcpserver and tst_mcp")},
    {QStringLiteral("resources-templates-read"),
     QStringLiteral("reads the suite's own template test://template/{id}/data; the server has no resource templates")},
    {QStringLiteral("resources-subscribe"),
     QStringLiteral("the server declares no resource subscriptions: a run's files never change")},
    {QStringLiteral("resources-unsubscribe"),
     QStringLiteral("the server declares no resource subscriptions: a run's files never change")},
    {QStringLiteral("prompts-list"), QStringLiteral("the server offers no prompts")},
    {QStringLiteral("prompts-get-simple"), QStringLiteral("the server offers no prompts")},
    {QStringLiteral("prompts-get-with-args"), QStringLiteral("the server offers no prompts")},
    {QStringLiteral("prompts-get-embedded-resource"), QStringLiteral("the server offers no prompts")},
    {QStringLiteral("prompts-get-with-image"), QStringLiteral("the server offers no prompts")},
};

/// Reads stream `channel` of `process` until `pattern` matches; its first capture, or empty
/// after `timeoutMs` or when the process ends.
QString waitForLine(QProcess& process, QProcess::ProcessChannel channel, const QRegularExpression& pattern,
                    int timeoutMs)
{
    process.setReadChannel(channel);
    QByteArray seen;
    QRegularExpressionMatch match;
    const bool ended = QTest::qWaitFor([&] {
        seen += process.readAll();
        match = pattern.match(QString::fromUtf8(seen));
        return match.hasMatch() || process.state() == QProcess::NotRunning;
    }, timeoutMs);
    if (!ended || !match.hasMatch())
        qWarning("no line matching %s in: %s", qPrintable(pattern.pattern()), seen.constData());
    return match.captured(1);
}

} // namespace

class TestMcpConformance : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    QProcess m_serve;
    QProcess m_proxy;
    QString m_url; ///< the proxy's MCP endpoint

    /// Runs the suite's CLI with `arguments`; its exit code, and its output in `output`.
    int suite(const QStringList& arguments, QByteArray* output)
    {
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.setWorkingDirectory(m_data.path());
        cli.start(QStringLiteral("node"), QStringList{kSuite} + arguments);
        if (!cli.waitForFinished(120000)) {
            cli.kill();
            cli.waitForFinished();
        }
        *output = cli.readAll();
        return cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(kSuite), "the MCP conformance suite is not installed: run `npm ci --prefix tests/mcp` "
                                        "(packaging/setup.sh does)");
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        const QString policy = m_data.filePath(QStringLiteral("policy.json"));
        QFile file(policy);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kPolicy);
        file.close();

        m_serve.start(QStringLiteral(SBW_CLI_PATH), {QStringLiteral("serve"), QStringLiteral("--port"), QStringLiteral("0"),
                                                     QStringLiteral("--policy"), policy, QStringLiteral("--connect"),
                                                     QStringLiteral("test:///default")});
        QVERIFY(m_serve.waitForStarted());
        const QString server = waitForLine(m_serve, QProcess::StandardError,
                                           QRegularExpression(QStringLiteral("(http://127\\.0\\.0\\.1:\\d+/mcp)")), 10000);
        QVERIFY(!server.isEmpty());
        QFile token(m_data.filePath(QStringLiteral("sandbox-workbench/mcp-token")));
        QVERIFY(token.open(QIODevice::ReadOnly));

        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SBW_MCP_TOKEN"), QString::fromLatin1(token.readAll().trimmed()));
        m_proxy.setProcessEnvironment(environment);
        m_proxy.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_proxy.start(QStringLiteral("node"), {QStringLiteral(SBW_MCP_CLIENT_DIR "/bearer-proxy.mjs"), server});
        QVERIFY(m_proxy.waitForStarted());
        m_url = waitForLine(m_proxy, QProcess::StandardOutput,
                            QRegularExpression(QStringLiteral("(http://127\\.0\\.0\\.1:\\d+/mcp)\n")), 10000);
        QVERIFY(!m_url.isEmpty());
    }

    void cleanupTestCase()
    {
        m_proxy.kill();
        m_proxy.waitForFinished(10000);
        m_serve.terminate();
        QVERIFY(m_serve.waitForFinished(10000));
        QCOMPARE(m_serve.exitCode(), 0);
    }

    /// The list above names every server scenario of the installed suite, no more, no fewer.
    void everyScenarioOfTheSuiteIsRunOrSkippedWithAReason()
    {
        QByteArray output;
        QCOMPARE(suite({QStringLiteral("list"), QStringLiteral("--server")}, &output), 0);
        QStringList listed;
        const QRegularExpression item(QStringLiteral("^  - (\\S+)$"), QRegularExpression::MultilineOption);
        for (auto it = item.globalMatch(QString::fromUtf8(output)); it.hasNext();)
            listed << it.next().captured(1);
        QStringList known;
        for (const auto& [name, reason] : kScenarios)
            known << name;
        listed.sort();
        known.sort();
        QCOMPARE(listed, known);
    }

    void scenario_data()
    {
        QTest::addColumn<QString>("skipReason");
        for (const auto& [name, reason] : kScenarios)
            QTest::newRow(qPrintable(name)) << reason;
    }

    /// The suite's CLI runs the scenario: exit code 0, and every check it records passed
    /// (SUCCESS; INFO lines only describe), none failed or warned.
    void scenario()
    {
        QFETCH(QString, skipReason);
        if (!skipReason.isEmpty())
            QSKIP(qPrintable(skipReason));
        const QString name = QString::fromUtf8(QTest::currentDataTag());
        QTemporaryDir results;
        QByteArray output;
        const int exitCode = suite({QStringLiteral("server"), QStringLiteral("--url"), m_url, QStringLiteral("--scenario"),
                                    name, QStringLiteral("--output-dir"), results.path()},
                                   &output);
        QVERIFY2(exitCode == 0, output.constData());

        QDirIterator found(results.path(), {QStringLiteral("checks.json")}, QDir::Files, QDirIterator::Subdirectories);
        QVERIFY2(found.hasNext(), output.constData());
        QFile file(found.next());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray checks = QJsonDocument::fromJson(file.readAll()).array();
        int passed = 0;
        for (const QJsonValue& value : checks) {
            const QJsonObject check = value.toObject();
            const QString status = check.value(QLatin1String("status")).toString();
            const QString id = check.value(QLatin1String("id")).toString();
            QVERIFY2(status == QLatin1String("SUCCESS") || status == QLatin1String("INFO"),
                     qPrintable(QStringLiteral("%1: %2 %3").arg(id, status, check.value(QLatin1String("errorMessage")).toString())));
            if (status == QLatin1String("SUCCESS"))
                ++passed;
            // The proxy sends the token, so the refusal is the Host/Origin check's (403), not 401.
            if (id == QLatin1String("localhost-host-rebinding-rejected"))
                QCOMPARE(check.value(QLatin1String("details")).toObject().value(QLatin1String("statusCode")).toInt(), 403);
        }
        QVERIFY2(passed > 0, output.constData());
    }
};

QTEST_GUILESS_MAIN(TestMcpConformance)
#include "tst_mcpconformance.moc"
