// network_activity through a real MCP server, policy gate and SQLite command log: an agent reads
// a workspace's network rules in the order they are tried (its own, then the default ones;
// rules of other kinds and other workspaces left out) and its latest connection attempts,
// newest first, with their figures; the call is an action the policy judges like any other.

#include "LoopbackHttpServer.h"
#include "approval/PolicyGate.h"
#include "log/CommandLog.h"
#include "mcp/McpNetworkTool.h"
#include "mcp/McpServer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace sbw;

namespace {

QJsonObject request(int id, const QString& method, const QJsonObject& params)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id},
            {QStringLiteral("method"), method},
            {QStringLiteral("params"), params}};
}

PolicyRule listRule(PolicyDecision decision)
{
    return PolicyRule{{ActionKind::List}, QStringLiteral("*"), decision};
}

} // namespace

class TestMcpNetworkTool : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<CommandLog> m_log;
    std::unique_ptr<PolicyGate> m_gate;
    std::unique_ptr<McpServer> m_server;
    QString m_session;

    QJsonObject send(const QJsonObject& message)
    {
        std::optional<QJsonObject> answer;
        m_server->handle(m_session, message, [&answer](const QJsonObject& reply) { answer = reply; });
        (void)QTest::qWaitFor([&] { return answer.has_value(); }, 5000);
        return answer.value_or(QJsonObject{});
    }

    QJsonObject call(const QJsonObject& arguments)
    {
        return send(request(2, QStringLiteral("tools/call"),
                            {{QStringLiteral("name"), QStringLiteral("network_activity")},
                             {QStringLiteral("arguments"), arguments}}))
            .value(QLatin1String("result"))
            .toObject();
    }

    void logConnection(const QString& sandbox, const QString& line, Outcome outcome, qint64 received)
    {
        ActionStart start;
        start.sandbox = sandbox;
        start.actor = {Actor::Kind::Guest, QStringLiteral("127.0.0.1:40000")};
        start.kind = ActionKind::Network;
        start.command = line;
        ActionEnd end;
        end.outcome = outcome;
        end.networkAddress = outcome == Outcome::Succeeded ? QStringLiteral("151.101.0.223") : QString();
        end.bytesSent = received > 0 ? 517 : 0;
        end.bytesReceived = received;
        QVERIFY(m_log->finish(m_log->begin(start).value(), end).ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_log = CommandLog::open(m_dir.filePath(QStringLiteral("log.sqlite"))).value();
        Policy policy;
        policy.defaultRules = {listRule(PolicyDecision::Allow),
                               test::networkRule(QStringLiteral("*.github.com"), {443, 22}, PolicyDecision::Allow),
                               test::networkRule(QStringLiteral("*"), {}, PolicyDecision::Ask)};
        policy.workspaceRules[QStringLiteral("demo")] = {
            test::networkRule(QStringLiteral("pypi.org"), {443}, PolicyDecision::Allow),
            PolicyRule{{ActionKind::Exec}, QStringLiteral("rm *"), PolicyDecision::Deny}};
        policy.workspaceRules[QStringLiteral("other")] = {
            test::networkRule(QStringLiteral("evil.example"), {443}, PolicyDecision::Allow)};
        m_gate = std::make_unique<PolicyGate>(policy, m_log);
        m_server = std::make_unique<McpServer>(m_gate.get(), m_log);
        m_server->addTool(networkActivityTool(m_gate.get(), m_log));
        m_session = m_server->openSession(QStringLiteral("stdio"));
        send(request(1, QStringLiteral("initialize"),
                     {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                      {QStringLiteral("capabilities"), QJsonObject{}},
                      {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("agent")},
                                                                 {QStringLiteral("version"), QStringLiteral("1")}}}}));
        logConnection(QStringLiteral("demo"), QStringLiteral("CONNECT pypi.org:443"), Outcome::Succeeded, 20480);
        logConnection(QStringLiteral("other"), QStringLiteral("CONNECT evil.example:443"), Outcome::Succeeded, 10);
        logConnection(QStringLiteral("demo"), QStringLiteral("CONNECT example.com:443"), Outcome::Denied, 0);
    }

    void rulesInTheOrderTheyAreTriedAndAttemptsNewestFirst()
    {
        const QJsonObject result = call({{QStringLiteral("workspace"), QStringLiteral("demo")}});
        QVERIFY2(!result.value(QLatin1String("isError")).toBool(), qPrintable(QJsonDocument(result).toJson()));
        const QJsonObject out = result.value(QLatin1String("structuredContent")).toObject();
        const QJsonArray rules = out.value(QLatin1String("rules")).toArray();
        QCOMPARE(rules.size(), 3);
        QCOMPARE(rules[0].toObject(),
                 (QJsonObject{{QStringLiteral("list"), QStringLiteral("workspace")}, {QStringLiteral("number"), 1},
                              {QStringLiteral("pattern"), QStringLiteral("pypi.org")},
                              {QStringLiteral("ports"), QJsonArray{443}}, {QStringLiteral("decision"), QStringLiteral("allow")}}));
        QCOMPARE(rules[1].toObject().value(QLatin1String("number")).toInt(), 2); // after the list rule
        QCOMPARE(rules[1].toObject().value(QLatin1String("ports")).toArray(), (QJsonArray{443, 22}));
        QCOMPARE(rules[2].toObject().value(QLatin1String("ports")).toArray(), (QJsonArray{80, 443}));
        QCOMPARE(rules[2].toObject().value(QLatin1String("decision")).toString(), QStringLiteral("ask"));

        const QJsonArray attempts = out.value(QLatin1String("attempts")).toArray();
        QCOMPARE(attempts.size(), 2);
        QCOMPARE(attempts[0].toObject().value(QLatin1String("request")).toString(), QStringLiteral("CONNECT example.com:443"));
        QCOMPARE(attempts[0].toObject().value(QLatin1String("status")).toString(), QStringLiteral("denied"));
        const QJsonObject first = attempts[1].toObject();
        QCOMPARE(first.value(QLatin1String("request")).toString(), QStringLiteral("CONNECT pypi.org:443"));
        QCOMPARE(first.value(QLatin1String("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(first.value(QLatin1String("address")).toString(), QStringLiteral("151.101.0.223"));
        QCOMPARE(first.value(QLatin1String("bytes_received")).toInt(), 20480);
        QCOMPARE(first.value(QLatin1String("bytes_sent")).toInt(), 517);
        QCOMPARE(out.value(QLatin1String("attempts_note")).toString(), QString());

        const QJsonObject limited = call({{QStringLiteral("workspace"), QStringLiteral("demo")}, {QStringLiteral("limit"), 1}});
        QCOMPARE(limited.value(QLatin1String("structuredContent")).toObject().value(QLatin1String("attempts")).toArray().size(), 1);
    }

    void theCallIsJudgedLikeAnyAction()
    {
        const Policy allowing = m_gate->policy();
        Policy denying = allowing;
        denying.defaultRules.first() = listRule(PolicyDecision::Deny);
        m_gate->setPolicy(denying);
        const QJsonObject result = call({{QStringLiteral("workspace"), QStringLiteral("demo")}});
        QVERIFY(result.value(QLatin1String("isError")).toBool());
        QVERIFY(!result.contains(QLatin1String("structuredContent")));
        m_gate->setPolicy(allowing);
    }

    void badArgumentsAreSaid()
    {
        const QJsonObject result = call({{QStringLiteral("workspace"), QStringLiteral("demo")}, {QStringLiteral("limit"), 0}});
        QVERIFY(result.value(QLatin1String("isError")).toBool());
        QCOMPARE(result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString(),
                 QStringLiteral("bad arguments: limit must be a whole number from 1 to 500"));
    }
};

QTEST_GUILESS_MAIN(TestMcpNetworkTool)
#include "tst_mcpnetworktool.moc"
