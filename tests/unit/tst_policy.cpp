// Policy: rule matching (kinds, fnmatch globs), order, who is asked, the JSON file and its
// errors.

#include "AgentRequests.h"
#include "Policy.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace sbw;
using sbw::test::agentExec;
using sbw::test::agentFileWrite;

class TestPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyPolicyAsksAgentsAndNobodyElse()
    {
        const Policy policy;
        QCOMPARE(policy.decide(agentExec(QStringLiteral("ls"))), PolicyDecision::Ask);
        ActionRequest person = agentExec(QStringLiteral("rm -rf /"));
        person.actor = {Actor::Kind::Person, {}};
        QCOMPARE(policy.decide(person), PolicyDecision::Allow);
        person.actor = {Actor::Kind::Cli, {}};
        QCOMPARE(policy.decide(person), PolicyDecision::Allow);
    }

    void globsMatchTheWholeSubjectWithFnmatchSemantics()
    {
        PolicyRule rule{{ActionKind::Exec}, QStringLiteral("rm *"), PolicyDecision::Deny};
        QVERIFY(rule.matches(agentExec(QStringLiteral("rm -rf /"))));
        QVERIFY(rule.matches(agentExec(QStringLiteral("rm a\nb")))); // * crosses newlines
        QVERIFY(!rule.matches(agentExec(QStringLiteral("sudo rm x"))));
        QVERIFY(!rule.matches(agentFileWrite(QStringLiteral("rm x"), "x\n"))); // other kind
        PolicyRule set{{}, QStringLiteral("git [ps]*"), PolicyDecision::Allow};
        QVERIFY(set.matches(agentExec(QStringLiteral("git status"))));
        QVERIFY(set.matches(agentExec(QStringLiteral("git push --force"))));
        QVERIFY(!set.matches(agentExec(QStringLiteral("git commit"))));
        PolicyRule one{{}, QStringLiteral("ls ?"), PolicyDecision::Allow};
        QVERIFY(one.matches(agentExec(QStringLiteral("ls /"))));
        QVERIFY(!one.matches(agentExec(QStringLiteral("ls /a"))));
        PolicyRule escaped{{}, QStringLiteral("echo \\*"), PolicyDecision::Allow};
        QVERIFY(escaped.matches(agentExec(QStringLiteral("echo *"))));
        QVERIFY(!escaped.matches(agentExec(QStringLiteral("echo a"))));
        PolicyRule path{{ActionKind::FileWrite}, QStringLiteral("/root/scratch/*"), PolicyDecision::Allow};
        QVERIFY(path.matches(agentFileWrite(QStringLiteral("/root/scratch/a/b.txt"), "x\n"))); // * crosses '/'
        QVERIFY(!path.matches(agentFileWrite(QStringLiteral("/root/.bashrc"), "x\n")));
        PolicyRule lifecycle{{ActionKind::Pause}, QStringLiteral("demo"), PolicyDecision::Allow};
        ActionRequest pause = agentExec({});
        pause.kind = ActionKind::Pause;
        QVERIFY(lifecycle.matches(pause)); // lifecycle actions match on the workspace name
    }

    // Variables an exec sets come before its command in what patterns see.
    void execVariablesArePartOfTheSubject()
    {
        Policy policy;
        policy.defaultRules = {PolicyRule{{ActionKind::Exec}, QStringLiteral("ls *"), PolicyDecision::Allow}};
        ActionRequest plain = agentExec(QStringLiteral("ls /root"));
        QCOMPARE(policy.decide(plain), PolicyDecision::Allow);
        ActionRequest withEnv = plain;
        withEnv.environment = {QStringLiteral("BASH_ENV=/tmp/x")};
        QCOMPARE(policy.decide(withEnv), PolicyDecision::Ask);
        const PolicyRule pinned{{ActionKind::Exec}, QStringLiteral("LANG=C ls *"), PolicyDecision::Allow};
        withEnv.environment = {QStringLiteral("LANG=C")};
        QVERIFY(pinned.matches(withEnv));
    }

    void firstMatchingRuleWinsWorkspaceRulesFirst()
    {
        Policy policy;
        policy.defaultRules = {
            {{ActionKind::Exec}, QStringLiteral("rm *"), PolicyDecision::Deny},
            {{ActionKind::Exec}, QStringLiteral("*"), PolicyDecision::Allow},
        };
        policy.workspaceRules.insert(QStringLiteral("careful"),
                                     {{{ActionKind::Exec}, QStringLiteral("*"), PolicyDecision::Ask}});
        QCOMPARE(policy.decide(agentExec(QStringLiteral("rm -rf build"))), PolicyDecision::Deny);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("ls"))), PolicyDecision::Allow);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("ls"), QStringLiteral("careful"))), PolicyDecision::Ask);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("rm x"), QStringLiteral("careful"))), PolicyDecision::Ask);
        QCOMPARE(policy.decide(agentFileWrite(QStringLiteral("/root/a"), "x\n")), PolicyDecision::Ask); // no rule matches
        std::swap(policy.defaultRules[0], policy.defaultRules[1]);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("rm -rf build"))), PolicyDecision::Allow);
    }

    void verdictNamesTheDecidingRule()
    {
        Policy policy;
        policy.defaultRules = {
            {{ActionKind::Pause}, QStringLiteral("*"), PolicyDecision::Allow},
            {{ActionKind::FileWrite}, QStringLiteral("/etc/*"), PolicyDecision::Deny},
            {{ActionKind::Exec, ActionKind::Run}, QStringLiteral("rm *"), PolicyDecision::Deny},
            {{}, QStringLiteral("say \"hi\"*"), PolicyDecision::Deny},
        };
        policy.workspaceRules.insert(QStringLiteral("careful"),
                                     {{{ActionKind::Exec}, QStringLiteral("ls*"), PolicyDecision::Allow},
                                      {{ActionKind::Exec}, QStringLiteral("*"), PolicyDecision::Deny}});
        PolicyVerdict verdict = policy.verdict(agentExec(QStringLiteral("rm -rf /")));
        QCOMPARE(verdict.decision, PolicyDecision::Deny);
        QCOMPARE(verdict.ruleNumber, 3);
        QCOMPARE(verdict.ruleText(), QStringLiteral("policy rule 3 (exec,run \"rm *\")"));
        verdict = policy.verdict(agentExec(QStringLiteral("make"), QStringLiteral("careful")));
        QCOMPARE(verdict.ruleText(), QStringLiteral("policy rule 2 of workspace 'careful' (exec \"*\")"));
        verdict = policy.verdict(agentExec(QStringLiteral("say \"hi\" there")));
        QCOMPARE(verdict.ruleText(), QStringLiteral("policy rule 4 (any \"say \\\"hi\\\"*\")"));
        verdict = policy.verdict(agentFileWrite(QStringLiteral("/root/a"), "x\n")); // no rule matches
        QCOMPARE(verdict.decision, PolicyDecision::Ask);
        QVERIFY(!verdict.rule);
        QCOMPARE(verdict.ruleText(), QString());
    }

    void savedFileLoadsBackAsItWas()
    {
        QTemporaryDir dir;
        Policy policy;
        policy.defaultRules = {{{ActionKind::Exec, ActionKind::Run}, QStringLiteral("rm -rf /*"), PolicyDecision::Deny},
                               {{}, QStringLiteral("*"), PolicyDecision::Ask}};
        policy.workspaceRules.insert(QStringLiteral("agent-1"),
                                     {{{ActionKind::FileWrite}, QStringLiteral("/root/scratch/*"), PolicyDecision::Allow}});
        const QString path = dir.filePath(QStringLiteral("sub/policy.json"));
        QVERIFY(policy.save(path).ok());
        const auto loaded = Policy::load(path);
        QVERIFY2(loaded.ok(), qPrintable(loaded.ok() ? QString() : loaded.error().message));
        QVERIFY(loaded.value() == policy);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("\"kinds\": [\n                \"exec\",\n                \"run\"\n            ]"));
        QVERIFY(text.contains("\"decision\": \"deny\""));
    }

    /// Off unless the file says so; a workspace's own setting (an object in "workspaces")
    /// overrides the policy's, and both survive a save.
    void pauseWhileWaitingIsPerWorkspace()
    {
        QVERIFY(!Policy{}.pausesWhileWaiting(QStringLiteral("demo")));
        const auto parsed = Policy::parse(R"({"version": 1, "pauseWhileWaiting": true, "workspaces": {
            "quiet": {"pauseWhileWaiting": false},
            "demo": {"pauseWhileWaiting": true, "rules": [{"kinds": ["exec"], "decision": "ask"}]},
            "plain": [{"decision": "allow"}]}})",
                                          QStringLiteral("p.json"));
        QVERIFY2(parsed.ok(), qPrintable(parsed.ok() ? QString() : parsed.error().message));
        const Policy& policy = parsed.value();
        QVERIFY(policy.pausesWhileWaiting(QStringLiteral("demo")));
        QVERIFY(policy.pausesWhileWaiting(QStringLiteral("plain")));
        QVERIFY(policy.pausesWhileWaiting(QStringLiteral("other")));
        QVERIFY(!policy.pausesWhileWaiting(QStringLiteral("quiet")));
        QCOMPARE(policy.workspaceRules.value(QStringLiteral("demo")),
                 (QList<PolicyRule>{{{ActionKind::Exec}, QStringLiteral("*"), PolicyDecision::Ask}}));
        QVERIFY(!policy.workspaceRules.contains(QStringLiteral("quiet")));
        QCOMPARE(policy.workspaceRules.value(QStringLiteral("plain")).size(), 1);

        const auto reparsed = Policy::parse(policy.toJson(), QStringLiteral("saved"));
        QVERIFY(reparsed.ok());
        QVERIFY(reparsed.value() == policy);
        const QJsonObject workspaces =
            QJsonDocument::fromJson(policy.toJson()).object().value(QLatin1String("workspaces")).toObject();
        QVERIFY(workspaces.value(QLatin1String("plain")).isArray());
        QCOMPARE(workspaces.value(QLatin1String("quiet")).toObject(),
                 (QJsonObject{{QStringLiteral("pauseWhileWaiting"), false}}));
        QCOMPARE(QJsonDocument::fromJson(Policy{}.toJson()).object().value(QLatin1String("pauseWhileWaiting")),
                 QJsonValue(false));
    }

    void missingFileIsTheEmptyPolicy()
    {
        QTemporaryDir dir;
        const auto loaded = Policy::load(dir.filePath(QStringLiteral("policy.json")));
        QVERIFY(loaded.ok());
        QVERIFY(loaded.value() == Policy{});
        const auto named = Policy::load(dir.filePath(QStringLiteral("policy.json")), Policy::IfMissing::Error);
        QVERIFY(!named.ok());
        QCOMPARE(named.error().message,
                 QStringLiteral("the policy file %1 does not exist").arg(dir.filePath(QStringLiteral("policy.json"))));
    }

    void everyKindButApprovalIsARuleKind()
    {
        // The list comes from the one table of kind names, so a new kind cannot be left out.
        QStringList names;
        for (ActionKind kind : allActionKinds()) {
            if (kind != ActionKind::Approval)
                names.append(actionKindName(kind));
        }
        QCOMPARE(policyActionKindNames(), names.join(QStringLiteral(", ")));
        QVERIFY(policyActionKindNames().endsWith(QLatin1String(", remove, list")));
        QVERIFY(!policyActionKinds().contains(ActionKind::Approval));
    }

    void badFilesNameTheLineOrField_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("syntax") << QByteArray("{\n  \"version\": 1,\n  \"default\": [ {\"decision\": \"ask\",} ]\n}")
                                << QStringLiteral("p.json:3:36: object is missing after a comma");
        QTest::newRow("not an object") << QByteArray("[]") << QStringLiteral("p.json: the policy must be a JSON object");
        QTest::newRow("version") << QByteArray("{\"version\": 2}") << QStringLiteral("p.json: version: must be 1");
        QTest::newRow("unknown top field")
            << QByteArray("{\"version\": 1, \"rules\": []}")
            << QStringLiteral("p.json: rules: unknown field (expected version, pauseWhileWaiting, default, workspaces)");
        QTest::newRow("pause setting")
            << QByteArray("{\"version\": 1, \"pauseWhileWaiting\": \"yes\"}")
            << QStringLiteral("p.json: pauseWhileWaiting: must be true or false");
        QTest::newRow("workspace pause setting")
            << QByteArray("{\"version\": 1, \"workspaces\": {\"w\": {\"pauseWhileWaiting\": 1}}}")
            << QStringLiteral("p.json: workspaces.w.pauseWhileWaiting: must be true or false");
        QTest::newRow("workspace field")
            << QByteArray("{\"version\": 1, \"workspaces\": {\"w\": {\"pause\": true}}}")
            << QStringLiteral("p.json: workspaces.w.pause: unknown field (expected rules, pauseWhileWaiting)");
        QTest::newRow("workspace rule in an object")
            << QByteArray("{\"version\": 1, \"workspaces\": {\"w\": {\"rules\": [{\"pattern\": \"*\"}]}}}")
            << QStringLiteral("p.json: workspaces.w.rules[0].decision: missing (allow, ask or deny)");
        QTest::newRow("decision")
            << QByteArray("{\"version\": 1, \"default\": [{\"decision\": \"ask\"}, {\"decision\": \"maybe\"}]}")
            << QStringLiteral("p.json: default[1].decision: \"maybe\" is not allow, ask or deny");
        QTest::newRow("missing decision") << QByteArray("{\"version\": 1, \"default\": [{\"pattern\": \"*\"}]}")
                                          << QStringLiteral("p.json: default[0].decision: missing (allow, ask or deny)");
        QTest::newRow("kind")
            << QByteArray("{\"version\": 1, \"workspaces\": {\"w\": [{\"kinds\": [\"exec\", \"sudo\"], \"decision\": \"deny\"}]}}")
            << QStringLiteral("p.json: workspaces.w[0].kinds[1]: \"sudo\" is not an action kind (exec, run, "
                              "file-write, upload, download, file-delete, create, start, stop, pause, resume, "
                              "hibernate, wake, checkpoint, checkpoint-delete, revert, remove, list)");
        QTest::newRow("approval is not a rule's kind")
            << QByteArray("{\"version\": 1, \"default\": [{\"kinds\": [\"approval\"], \"decision\": \"deny\"}]}")
            << QStringLiteral("p.json: default[0].kinds[0]: \"approval\" is not an action kind (%1)")
                   .arg(policyActionKindNames());
        QTest::newRow("pattern") << QByteArray("{\"version\": 1, \"default\": [{\"pattern\": 3, \"decision\": \"deny\"}]}")
                                 << QStringLiteral("p.json: default[0].pattern: must be a non-empty string");
        QTest::newRow("rule field")
            << QByteArray("{\"version\": 1, \"default\": [{\"decison\": \"deny\"}]}")
            << QStringLiteral("p.json: default[0].decison: unknown field (expected kinds, pattern, decision)");
        QTest::newRow("workspaces") << QByteArray("{\"version\": 1, \"workspaces\": []}")
                                    << QStringLiteral("p.json: workspaces: must map workspace names to rule lists");
    }

    void badFilesNameTheLineOrField()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        const auto parsed = Policy::parse(json, QStringLiteral("p.json"));
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().message, error);
    }

    void unreadableFileIsAnError()
    {
        QTemporaryDir dir;
        const auto loaded = Policy::load(dir.path()); // a folder
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().message.startsWith(QStringLiteral("cannot read the policy file ")),
                 qPrintable(loaded.error().message));
    }
};

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"
