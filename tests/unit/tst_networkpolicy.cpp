// Policy's network rules: the file format and its errors, which rule decides a connection, the
// addresses a name may resolve to (refusedAddress()), and "allow always" (setDestinationRule()).

#include "approval/Policy.h"

#include <QtTest>

using namespace sbw;

namespace {

ActionRequest connection(const QString& host, quint16 port = 443,
                         const QString& workspace = QStringLiteral("demo"),
                         Actor::Kind actor = Actor::Kind::Agent)
{
    ActionRequest request;
    request.sandbox = workspace;
    request.actor =
        Actor{actor, actor == Actor::Kind::Agent ? QStringLiteral("claude-code") : QString()};
    request.kind = ActionKind::Network;
    request.destination.host = host;
    request.destination.port = port;
    return request;
}

/// `request` after the proxy resolved its name to `addresses`.
ActionRequest resolved(ActionRequest request, const QStringList& addresses)
{
    for (const QString& address : addresses)
        request.destination.addresses.append(QHostAddress(address));
    return request;
}

PolicyRule network(const char* pattern, PolicyDecision decision, const QList<quint16>& ports = {})
{
    return PolicyRule{{ActionKind::Network}, QString::fromLatin1(pattern), decision, ports};
}

Policy parsed(const QByteArray& json)
{
    auto policy = Policy::parse(json, QStringLiteral("policy.json"));
    if (!policy)
        qFatal("%s", qPrintable(policy.error().message));
    return policy.value();
}

} // namespace

class TestNetworkPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void networkFollowsTheOlderKinds()
    {
        QCOMPARE(actionKindName(ActionKind::Network), QStringLiteral("network"));
        QCOMPARE(actionKindFromName(QStringLiteral("network")), ActionKind::Network);
        // Names are stored and new kinds are appended: network came after list, browse and fork
        // after it.
        QCOMPARE(allActionKinds().indexOf(ActionKind::Network), allActionKinds().indexOf(ActionKind::List) + 1);
        QCOMPARE(allActionKinds().indexOf(ActionKind::Browse), allActionKinds().indexOf(ActionKind::Network) + 1);
        QCOMPARE(allActionKinds().last(), ActionKind::Fork);
        QVERIFY(policyActionKinds().contains(ActionKind::Network));
    }

    void rulesReadAndWriteBack()
    {
        const Policy policy = parsed(R"({"version": 1, "default": [
            {"kinds": ["network"], "pattern": "*.github.com", "ports": [443, 22], "decision": "allow"},
            {"kinds": ["network"], "pattern": "10.0.0.0/8", "decision": "deny"},
            {"kinds": ["network"], "decision": "ask"}]})");
        QCOMPARE(policy.defaultRules.size(), 3);
        QCOMPARE(policy.defaultRules[0], network("*.github.com", PolicyDecision::Allow, {443, 22}));
        QCOMPARE(policy.defaultRules[1], network("10.0.0.0/8", PolicyDecision::Deny));
        QCOMPARE(policy.defaultRules[2], network("*", PolicyDecision::Ask));
        const QByteArray json = policy.toJson();
        QVERIFY(json.contains("\"ports\""));
        QCOMPARE(json.count("\"ports\""), 1); // written only when there are some
        QCOMPARE(Policy::parse(json, QStringLiteral("again")).value(), policy);
    }

    void badRulesNameTheirPlace_data()
    {
        QTest::addColumn<QByteArray>("rule");
        QTest::addColumn<QString>("error");
        const auto row = [](const char* name, const char* rule, const QString& error) {
            QTest::newRow(name) << QByteArray(rule)
                                << QStringLiteral("policy.json: default[1].") + error;
        };
        row("network with other kinds", R"({"kinds": ["network", "exec"], "decision": "allow"})",
            QStringLiteral("kinds: network rules name only the kind network"));
        row("network twice", R"({"kinds": ["network", "network"], "decision": "allow"})",
            QStringLiteral("kinds: network rules name only the kind network"));
        row("ports of an exec rule", R"({"kinds": ["exec"], "ports": [22], "decision": "allow"})",
            QStringLiteral("ports: only network rules (kinds [\"network\"]) have ports"));
        row("ports of a rule of every kind", R"({"ports": [22], "decision": "allow"})",
            QStringLiteral("ports: only network rules (kinds [\"network\"]) have ports"));
        row("port 0", R"({"kinds": ["network"], "ports": [0], "decision": "allow"})",
            QStringLiteral("ports[0]: 0 is not a port (1–65535)"));
        row("port too big", R"({"kinds": ["network"], "ports": [443, 65536], "decision": "allow"})",
            QStringLiteral("ports[1]: 65536 is not a port (1–65535)"));
        row("port fraction", R"({"kinds": ["network"], "ports": [44.5], "decision": "allow"})",
            QStringLiteral("ports[0]: 44.5 is not a port (1–65535)"));
        row("port string", R"({"kinds": ["network"], "ports": ["443"], "decision": "allow"})",
            QStringLiteral("ports[0]: \"443\" is not a port (1–65535)"));
        row("ports not a list", R"({"kinds": ["network"], "ports": 443, "decision": "allow"})",
            QStringLiteral("ports: must be a non-empty list of ports (1–65535)"));
        row("ports empty", R"({"kinds": ["network"], "ports": [], "decision": "allow"})",
            QStringLiteral("ports: must be a non-empty list of ports (1–65535)"));
        row("pattern", R"({"kinds": ["network"], "pattern": "*.", "decision": "allow"})",
            QStringLiteral("pattern: \"*.\" is not a host name, *.NAME or an address range"));
        row("glob pattern", R"({"kinds": ["network"], "pattern": "*github*", "decision": "allow"})",
            QStringLiteral("pattern: \"*github*\" is not a host name, *.NAME or an address range"));
        row("odd address", R"({"kinds": ["network"], "pattern": "127.1", "decision": "allow"})",
            QStringLiteral("pattern: \"127.1\" is not a host name, *.NAME or an address range"));
    }
    void badRulesNameTheirPlace()
    {
        QFETCH(QByteArray, rule);
        QFETCH(QString, error);
        const QByteArray json = R"({"version": 1, "default": [{"decision": "ask"}, )" + rule + "]}";
        const auto policy = Policy::parse(json, QStringLiteral("policy.json"));
        QVERIFY(!policy);
        QCOMPARE(policy.error().message, error);
    }

    void firstMatchingRuleDecides()
    {
        Policy policy;
        policy.defaultRules = {network("evil.example", PolicyDecision::Deny),
                               network("*.github.com", PolicyDecision::Allow, {443, 22}),
                               network("pypi.org", PolicyDecision::Allow),
                               network("*", PolicyDecision::Deny)};
        policy.workspaceRules.insert(QStringLiteral("careful"),
                                     {network("*.github.com", PolicyDecision::Ask)});
        QCOMPARE(policy.decide(connection(QStringLiteral("api.github.com"))),
                 PolicyDecision::Allow);
        QCOMPARE(policy.decide(connection(QStringLiteral("api.github.com"), 22)),
                 PolicyDecision::Allow);
        QCOMPARE(policy.decide(connection(QStringLiteral("api.github.com"), 80)),
                 PolicyDecision::Deny); // not its port
        QCOMPARE(policy.decide(connection(QStringLiteral("github.com"))), PolicyDecision::Deny);
        QCOMPARE(policy.decide(connection(QStringLiteral("pypi.org"), 80)),
                 PolicyDecision::Allow); // 80 and 443
        QCOMPARE(policy.decide(connection(QStringLiteral("pypi.org"), 443)), PolicyDecision::Allow);
        // No rule covers 8080: "*" without ports covers 80 and 443 too.
        QCOMPARE(policy.decide(connection(QStringLiteral("pypi.org"), 8080)), PolicyDecision::Ask);
        QCOMPARE(policy.decide(connection(QStringLiteral("127.0.0.1"))),
                 PolicyDecision::Ask); // "*" is names only
        // The workspace's rules come first.
        QCOMPARE(policy.decide(
                     connection(QStringLiteral("api.github.com"), 443, QStringLiteral("careful"))),
                 PolicyDecision::Ask);
        QCOMPARE(policy.decide(
                     connection(QStringLiteral("api.github.com"), 22, QStringLiteral("careful"))),
                 PolicyDecision::Allow); // its rule covers 80 and 443 only
        policy.defaultRules.removeLast();
        QCOMPARE(policy.decide(connection(QStringLiteral("example.org"))),
                 PolicyDecision::Ask); // no rule
    }

    void everyActorIsJudged()
    {
        Policy policy;
        policy.defaultRules = {network("*", PolicyDecision::Deny)};
        for (Actor::Kind actor :
             {Actor::Kind::Person, Actor::Kind::Cli, Actor::Kind::Agent, Actor::Kind::Workbench})
            QCOMPARE(policy.decide(connection(QStringLiteral("pypi.org"), 443,
                                              QStringLiteral("demo"), actor)),
                     PolicyDecision::Deny);
        QCOMPARE(Policy().decide(connection(QStringLiteral("pypi.org"), 443, QStringLiteral("demo"),
                                            Actor::Kind::Person)),
                 PolicyDecision::Ask);
    }

    void rulesOfEveryKindDoNotCoverNetwork()
    {
        Policy policy;
        policy.defaultRules = {PolicyRule{{}, QStringLiteral("*"), PolicyDecision::Allow}};
        QVERIFY(!policy.defaultRules[0].covers(ActionKind::Network));
        QVERIFY(policy.defaultRules[0].covers(ActionKind::Exec));
        QVERIFY(!policy.defaultRules[0].matches(connection(QStringLiteral("pypi.org"))));
        QCOMPARE(policy.decide(connection(QStringLiteral("pypi.org"))), PolicyDecision::Ask);
        // A glob rule naming network does not match anything: its pattern is no NetworkPattern.
        policy.defaultRules = {
            PolicyRule{{ActionKind::Network}, QStringLiteral("*py*"), PolicyDecision::Allow}};
        QCOMPARE(policy.decide(connection(QStringLiteral("pypi.org"))), PolicyDecision::Ask);
    }

    void verdictNamesRuleAndDestination()
    {
        Policy policy;
        policy.defaultRules = {network("*", PolicyDecision::Deny)};
        policy.workspaceRules.insert(QStringLiteral("demo"),
                                     {network("pypi.org", PolicyDecision::Allow),
                                      network("*.github.com", PolicyDecision::Allow, {443, 22})});
        PolicyVerdict verdict = policy.verdict(connection(QStringLiteral("evil.example")));
        QCOMPARE(verdict.decision, PolicyDecision::Deny);
        QCOMPARE(verdict.ruleNumber, 1);
        QCOMPARE(verdict.workspace, QString());
        QCOMPARE(verdict.denialReason(),
                 QStringLiteral("denied by policy rule 1 (network \"*\"): evil.example:443"));
        verdict = policy.verdict(connection(QStringLiteral("api.github.com"), 22));
        QCOMPARE(verdict.decision, PolicyDecision::Allow);
        QCOMPARE(verdict.ruleText(),
                 QStringLiteral(
                     "policy rule 2 of workspace 'demo' (network \"*.github.com\" ports 443,22)"));
        verdict = policy.verdict(connection(QStringLiteral("::1"), 8080, QStringLiteral("other")));
        QCOMPARE(verdict.decision, PolicyDecision::Ask);
        QCOMPARE(verdict.command, QStringLiteral("[::1]:8080"));
    }

    void specialAddressesNeedARuleThatNamesThem_data()
    {
        QTest::addColumn<QList<PolicyRule>>("rules");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QStringList>("addresses");
        QTest::addColumn<QString>("refusal"); // null: connects
        const QList<PolicyRule> suffix{network("*.example.com", PolicyDecision::Allow)};
        QTest::newRow("public address")
            << suffix << "pypi.example.com" << QStringList{"151.101.0.223"} << QString();
        QTest::newRow("loopback by a suffix rule")
            << suffix << "pypi.example.com" << QStringList{"151.101.0.223", "127.0.0.1"}
            << "pypi.example.com resolves to 127.0.0.1 (loopback); no rule names that host or "
               "range";
        QTest::newRow("mapped loopback")
            << suffix << "pypi.example.com" << QStringList{"::ffff:127.0.0.1"}
            << "pypi.example.com resolves to ::ffff:127.0.0.1 (IPv4-mapped loopback); no rule "
               "names that host or range";
        QTest::newRow("the exact name")
            << QList{network("db.example.com", PolicyDecision::Allow)} + suffix << "db.example.com"
            << QStringList{"10.0.0.5"} << QString();
        QTest::newRow("the exact name, another port")
            << QList{network("db.example.com", PolicyDecision::Allow, {5432})} + suffix
            << "db.example.com" << QStringList{"10.0.0.5"}
            << "db.example.com resolves to 10.0.0.5 (private); no rule names that host or range";
        QTest::newRow("a special range")
            << suffix + QList{network("127.0.0.0/8", PolicyDecision::Allow)} << "pypi.example.com"
            << QStringList{"127.0.0.1"} << QString();
        QTest::newRow("everything is not explicit")
            << suffix + QList{network("0.0.0.0/0", PolicyDecision::Allow)} << "pypi.example.com"
            << QStringList{"127.0.0.1"}
            << "pypi.example.com resolves to 127.0.0.1 (loopback); no rule names that host or "
               "range";
        QTest::newRow("a deny rule is not explicit")
            << QList{network("127.0.0.0/8", PolicyDecision::Deny),
                     network("127.0.0.0/8", PolicyDecision::Allow)} +
                   suffix
            << "pypi.example.com" << QStringList{"127.0.0.1"}
            << "pypi.example.com resolves to 127.0.0.1 (loopback); policy rule 1 (network "
               "\"127.0.0.0/8\") does not "
               "allow it";
        QTest::newRow("an ask rule is not explicit")
            << QList{network("db.example.com", PolicyDecision::Ask)} << "db.example.com"
            << QStringList{"10.0.0.5"}
            << "db.example.com resolves to 10.0.0.5 (private); policy rule 1 (network "
               "\"db.example.com\") does not "
               "allow it";
        QTest::newRow("literal loopback")
            << QList<PolicyRule>{} << "127.0.0.1" << QStringList{}
            << "127.0.0.1 is in a special range (loopback); no rule names that "
               "address or range";
        QTest::newRow("literal loopback named")
            << QList{network("127.0.0.1", PolicyDecision::Allow)} << "127.0.0.1" << QStringList{}
            << QString();
        QTest::newRow("literal public")
            << QList<PolicyRule>{} << "8.8.8.8" << QStringList{} << QString();
        QTest::newRow("literal link-local in a wide range")
            << QList{network("169.254.0.0/16", PolicyDecision::Allow)} << "169.254.169.254"
            << QStringList{} << QString();
        QTest::newRow("unique local")
            << QList{network("fd00::/8", PolicyDecision::Allow)} + suffix << "x.example.com"
            << QStringList{"fd00::1", "fe80::1"}
            << "x.example.com resolves to fe80::1 (link-local); no rule names that host or range";
    }
    void specialAddressesNeedARuleThatNamesThem()
    {
        QFETCH(QList<PolicyRule>, rules);
        QFETCH(QString, host);
        QFETCH(QStringList, addresses);
        QFETCH(QString, refusal);
        Policy policy;
        policy.defaultRules = rules;
        const auto refused = policy.refusedAddress(resolved(connection(host), addresses));
        QCOMPARE(refused.value_or(QString()), refusal);
        // The same rules in the workspace's list count the same.
        Policy inWorkspace;
        inWorkspace.workspaceRules.insert(QStringLiteral("demo"), rules);
        QCOMPARE(inWorkspace.refusedAddress(resolved(connection(host), addresses)).has_value(),
                 !refusal.isNull());
    }

    void destinationRuleGoesFirstAndReplacesItsEqual()
    {
        Policy policy;
        policy.workspaceRules.insert(QStringLiteral("demo"), {network("*", PolicyDecision::Deny)});
        const ActionRequest request =
            resolved(connection(QStringLiteral("db.example.com"), 443), {"10.0.0.5"});
        QCOMPARE(policy.decide(request), PolicyDecision::Deny);
        policy.setDestinationRule(QStringLiteral("demo"), request.destination, PolicyDecision::Deny);
        // Allow always after deny always: one rule for the host and port, the newer decision.
        policy.setDestinationRule(QStringLiteral("demo"), request.destination, PolicyDecision::Allow);
        QCOMPARE(policy.workspaceRules.value(QStringLiteral("demo")),
                 (QList{network("db.example.com", PolicyDecision::Allow, {443}),
                        network("*", PolicyDecision::Deny)}));
        QCOMPARE(policy.decide(request), PolicyDecision::Allow);
        QCOMPARE(policy.refusedAddress(request),
                 std::nullopt); // the exact name reaches its address
        QCOMPARE(policy.decide(connection(QStringLiteral("db.example.com"), 80)),
                 PolicyDecision::Deny);
        // A literal address: a single-address range, which names it explicitly.
        const ActionRequest literal = connection(QStringLiteral("::1"), 8080, QString());
        policy.setDestinationRule(QString(), literal.destination, PolicyDecision::Allow);
        QCOMPARE(policy.defaultRules, (QList{network("::1", PolicyDecision::Allow, {8080})}));
        QCOMPARE(policy.decide(literal), PolicyDecision::Allow);
        QCOMPARE(policy.refusedAddress(literal), std::nullopt);
        QCOMPARE(Policy::parse(policy.toJson(), QStringLiteral("again")).value(), policy);
    }
};

QTEST_GUILESS_MAIN(TestNetworkPolicy)
#include "tst_networkpolicy.moc"
