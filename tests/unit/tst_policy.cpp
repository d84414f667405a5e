// Policy: rule matching (kinds, fnmatch globs), order, who is asked, the JSON file and its
// errors; exec lines and sh scripts judged command by command (PolicyCommands, ShellSyntax).

#include "AgentRequests.h"
#include "approval/Policy.h"
#include "approval/PolicyCommands.h"
#include "approval/ShellSyntax.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

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

    // A browse rule judges the page's address: the one a navigation goes to, the page a click
    // or a read acts on (ActionRequest::path); the step itself is not part of the subject.
    void browseRulesMatchThePageAddress()
    {
        Policy policy;
        policy.defaultRules = {
            {{ActionKind::Browse}, QStringLiteral("https://bank.example/*"), PolicyDecision::Deny},
            {{ActionKind::Browse}, QStringLiteral("file:///root/*"), PolicyDecision::Allow},
        };
        ActionRequest navigate;
        navigate.kind = ActionKind::Browse;
        navigate.actor = {Actor::Kind::Agent, QStringLiteral("agent-1")};
        navigate.sandbox = QStringLiteral("w");
        navigate.command = QStringLiteral("navigate file:///root/form.html");
        navigate.path = QStringLiteral("file:///root/form.html");
        QCOMPARE(policy.decide(navigate), PolicyDecision::Allow);
        ActionRequest click = navigate;
        click.command = QStringLiteral("click e2");
        click.path = QStringLiteral("https://bank.example/transfer");
        QCOMPARE(policy.decide(click), PolicyDecision::Deny);
        click.path = QStringLiteral("https://docs.example/");
        QCOMPARE(policy.decide(click), PolicyDecision::Ask); // no rule matches
        // A rule of every kind covers browse too; a network rule does not.
        const PolicyRule everything{{}, QStringLiteral("https://docs.example/*"), PolicyDecision::Allow};
        QVERIFY(everything.matches(click));
        QCOMPARE(actionKindFromName(QStringLiteral("browse")), ActionKind::Browse);
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
        verdict = policy.verdict(agentExec(QStringLiteral("say '\"hi\"' there"))); // the word's value has the quotes
        QCOMPARE(verdict.ruleText(), QStringLiteral("policy rule 4 (any \"say \\\"hi\\\"*\")"));
        verdict = policy.verdict(agentFileWrite(QStringLiteral("/root/a"), "x\n")); // no rule matches
        QCOMPARE(verdict.decision, PolicyDecision::Ask);
        QVERIFY(!verdict.rule);
        QCOMPARE(verdict.ruleText(), QString());
    }

    // The policy of the table below: ls and echo allowed, and the programs that can run others
    // from their arguments (so that a row asks only because of what they would run); rm
    // denied; anything else asked.
    static Policy lsEchoRmPolicy()
    {
        Policy policy;
        const auto allow = [&](const char* pattern) {
            policy.defaultRules.append({{ActionKind::Exec, ActionKind::Run},
                                        QString::fromLatin1(pattern), PolicyDecision::Allow});
        };
        for (const char* pattern : {"ls", "ls *", "echo *", "find *", "awk *", "gawk *", "sed *",
                                    "git *", "hash *", "enable *", "flock *", "taskset *",
                                    "strace *"})
            allow(pattern);
        policy.defaultRules.append(
            {{ActionKind::Exec, ActionKind::Run}, QStringLiteral("rm *"), PolicyDecision::Deny});
        return policy;
    }

    void everyCommandOfALineIsJudged_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("environment");
        QTest::addColumn<PolicyDecision>("expected");
        const auto row = [](const char* name, const QString& line, PolicyDecision expected,
                            const QStringList& environment = {}) {
            QTest::newRow(name) << line << environment << expected;
        };
        const PolicyDecision allow = PolicyDecision::Allow, ask = PolicyDecision::Ask,
                             deny = PolicyDecision::Deny;
        // Plain allowed commands stay allowed.
        row("ls -la", QStringLiteral("ls -la"), allow);
        row("quoted argument", QStringLiteral("ls 'a b'"), allow);
        row("allowed pipeline", QStringLiteral("echo hi | ls"), allow);
        row("allowed list", QStringLiteral("ls; echo done && ls -l || echo failed"), allow);
        row("allowed substitution", QStringLiteral("echo $(ls)"), allow);
        // Every way of writing a second command.
        row("semicolon", QStringLiteral("ls; rm -rf /root"), deny);
        row("and", QStringLiteral("ls && rm x"), deny);
        row("or", QStringLiteral("ls || rm x"), deny);
        row("newline", QStringLiteral("ls\nrm x"), deny);
        row("background", QStringLiteral("ls & rm x"), deny);
        row("pipe to a shell", QStringLiteral("ls | sh"), ask);
        row("curl to a shell", QStringLiteral("curl x | bash"), ask);
        row("command substitution", QStringLiteral("ls $(rm x)"), deny);
        row("backticks", QStringLiteral("ls `rm x`"), deny);
        row("process substitution", QStringLiteral("ls <(rm x)"), deny);
        row("subshell", QStringLiteral("(rm x)"), deny);
        row("brace group", QStringLiteral("{ rm x; }"), deny);
        row("function body", QStringLiteral("f(){ rm x; }; f"), deny);
        row("if body", QStringLiteral("if true; then rm x; fi"), deny);
        row("if condition", QStringLiteral("if rm x; then ls; fi"), deny);
        row("for body", QStringLiteral("for i in 1; do rm x; done"), deny);
        row("while body", QStringLiteral("while false; do rm x; done"), deny);
        row("until body", QStringLiteral("until ls; do rm x; done"), deny);
        row("case body", QStringLiteral("case a in a) rm x;; esac"), deny);
        row("redirection target", QStringLiteral("ls > $(rm x)"), deny);
        row("here-document expansion", QStringLiteral("cat <<EOF\n$(rm x)\nEOF\n"), deny);
        row("test clause", QStringLiteral("[[ $(rm x) ]]"), deny);
        row("arithmetic", QStringLiteral("echo $(( $(rm x) + 1 ))"), deny);
        row("declaration", QStringLiteral("export A=$(rm x)"), deny);
        row("declaration itself", QStringLiteral("export PATH=/tmp"), ask);
        row("sh -c", QStringLiteral("sh -c 'rm x'"), deny);
        row("bash -c", QStringLiteral("bash -c \"ls; rm x\""), deny);
        row("sh -ec", QStringLiteral("sh -ec 'rm x'"), deny);
        row("nested shells", QStringLiteral("sh -c \"bash -c 'rm x'\""), deny);
        row("sh -c with expansions", QStringLiteral("sh -c \"$X\""), ask);
        row("here-string to a shell", QStringLiteral("sh <<< 'rm x'"), deny);
        row("here-document to a shell", QStringLiteral("sh <<EOF\nls\nrm x\nEOF\n"), deny);
        row("quoted here-document to a shell", QStringLiteral("bash <<'EOF'\nrm x\nEOF\n"), deny);
        row("expanded here-document to a shell", QStringLiteral("sh <<EOF\necho $X\nEOF\n"), ask);
        row("shell reading a file", QStringLiteral("sh < x.sh"), ask);
        // Constructs whose effect the text does not show.
        row("eval", QStringLiteral("eval ls"), ask);
        row("source", QStringLiteral(". ./x"), ask);
        row("source by name", QStringLiteral("source ./x"), ask);
        row("alias", QStringLiteral("alias ls=rm"), ask);
        row("trap", QStringLiteral("trap 'rm x' EXIT"), ask);
        row("variable as program", QStringLiteral("$X"), ask);
        row("substitution as program", QStringLiteral("\"$(echo rm)\" x"),
            ask); // `echo rm` allowed, the program asked
        row("ANSI-C program name", QStringLiteral("$'rm' x"), ask);
        row("glob program name", QStringLiteral("/bin/r? x"), ask);
        row("brace program name", QStringLiteral("{rm,x}"), ask);
        row("test command", QStringLiteral("[ -f x ] && rm x"), deny);
        row("python -c", QStringLiteral("python3 -c 'import os'"), ask);
        row("perl -e", QStringLiteral("perl -e 'unlink \"x\"'"), ask);
        row("node -e", QStringLiteral("node -e 1"), ask);
        // Wrappers.
        row("env", QStringLiteral("env FOO=1 rm x"), deny);
        row("env -i -u", QStringLiteral("env -i -u HOME rm x"), deny);
        row("env -S", QStringLiteral("env -S 'rm x'"), ask);
        row("nice", QStringLiteral("nice -n 5 rm x"), deny);
        row("timeout", QStringLiteral("timeout 5 rm x"), deny);
        row("timeout options", QStringLiteral("timeout -k 1 -s KILL 5 rm x"), deny);
        row("stdbuf", QStringLiteral("stdbuf -o L rm x"), deny);
        row("time keyword", QStringLiteral("time -p rm x"), deny);
        row("time program", QStringLiteral("/usr/bin/time -f %e rm x"), deny);
        row("xargs", QStringLiteral("xargs rm"), deny);
        row("xargs options", QStringLiteral("find . | xargs -0 -n 1 rm -f"), deny);
        row("busybox", QStringLiteral("busybox rm x"), deny);
        row("setsid", QStringLiteral("setsid rm x"), deny);
        row("nohup", QStringLiteral("nohup rm x"), deny);
        row("command", QStringLiteral("command -p rm x"), deny);
        row("exec", QStringLiteral("exec rm x"), deny);
        row("sudo", QStringLiteral("sudo -u root -E rm x"), deny);
        row("env -", QStringLiteral("env - rm x"), deny);
        row("nested wrappers", QStringLiteral("nice env A=1 timeout 5 sudo rm x"), deny);
        row("wrapped shell", QStringLiteral("nohup sh -c 'rm x'"), deny);
        row("wrapper of a variable", QStringLiteral("env $X"), ask);
        row("allowed program, wrapper without a rule", QStringLiteral("nice ls"), ask);
        row("exec -a", QStringLiteral("exec -a ls rm x"), deny);
        row("builtin eval", QStringLiteral("builtin eval ls"), ask);
        row("here-document to a wrapped shell", QStringLiteral("env sh <<EOF\nrm x\nEOF\n"), deny);
        row("flock", QStringLiteral("flock /tmp/l rm x"), deny);
        row("flock -c", QStringLiteral("flock /tmp/l -c 'ls'"), ask);
        row("taskset", QStringLiteral("taskset -c 0 rm x"), deny);
        row("strace", QStringLiteral("strace -f -o /tmp/t rm x"), deny);
        // Programs that run other programs from their arguments.
        row("find -exec", QStringLiteral("find . -name x -exec rm {} \\;"), deny);
        row("find -execdir +", QStringLiteral("find / -execdir rm -rf {} +"), deny);
        row("find -ok with a shell", QStringLiteral("find . -ok sh -c 'rm x' \\;"), deny);
        row("find -exec of an unseen program", QStringLiteral("find . -exec $X {} \\;"), ask);
        row("awk system()", QStringLiteral("awk 'BEGIN { system(\"ls\") }'"), ask);
        row("awk pipe", QStringLiteral("awk '{ print | \"sh\" }' x"), ask);
        row("awk program file", QStringLiteral("gawk -f prog.awk x"), ask);
        row("awk program with expansions", QStringLiteral("awk \"$P\" x"), ask);
        row("sed e command", QStringLiteral("sed '1e ls' x"), ask);
        row("sed e flag", QStringLiteral("sed -e 's/x/ls/e' x"), ask);
        row("sed e flag, other delimiter", QStringLiteral("sed 's|x|ls|ge' x"), ask);
        row("sed script file", QStringLiteral("sed -f s.sed x"), ask);
        row("git -c", QStringLiteral("git -c alias.x='!rm x' x"), ask);
        row("hash -p", QStringLiteral("hash -p /bin/rm ls; ls x"), ask);
        row("enable -f", QStringLiteral("enable -f ./x.so ls"), ask);
        row("find", QStringLiteral("find . -name '*.py' -print"), allow);
        row("find -exec of an allowed program", QStringLiteral("find . -exec ls {} \\;"), allow);
        row("awk", QStringLiteral("awk -F: '{ print $1 }' /etc/passwd"), allow);
        row("sed", QStringLiteral("sed -n -e 's/hello/there/g' -e '/^e/p' x"), allow);
        row("sed in place", QStringLiteral("sed -i.bak '$d' x"), allow);
        row("git", QStringLiteral("git status --short"), allow);
        row("hash", QStringLiteral("hash -r"), allow);
        // Function shadowing: the body is judged where it is defined.
        row("function named like an allowed program", QStringLiteral("ls() { rm x; }; ls"), deny);
        row("function running a shell", QStringLiteral("echo() { sh; }; echo hi"), ask);
        // Names and spellings.
        row("path", QStringLiteral("/bin/rm x"), deny);
        row("backslash", QStringLiteral("\\rm x"), deny);
        row("double quotes", QStringLiteral("\"rm\" x"), deny);
        row("empty quotes", QStringLiteral("r''m x"), deny);
        row("quoted argument to rm", QStringLiteral("rm '-rf' \"/root\""), deny);
        row("assignment", QStringLiteral("FOO=1 rm x"), deny);
        row("MCP environment", QStringLiteral("rm x"), deny, {QStringLiteral("FOO=1")});
        row("assignment before an allowed program", QStringLiteral("LD_PRELOAD=/tmp/x.so ls"), ask);
        row("MCP environment before an allowed program", QStringLiteral("ls"), ask,
            {QStringLiteral("BASH_ENV=/tmp/x")});
        row("allowed name with a path", QStringLiteral("./ls -la"), ask);
        // What the parser cannot read.
        row("syntax error", QStringLiteral("ls ("), ask);
        row("unterminated quote", QStringLiteral("ls 'a"), ask);
    }

    void everyCommandOfALineIsJudged()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, environment);
        QFETCH(PolicyDecision, expected);
        ActionRequest request = agentExec(line);
        request.environment = environment;
        const PolicyVerdict verdict = lsEchoRmPolicy().verdict(request);
        QStringList seen;
        for (const CommandVerdict& command : verdict.commands)
            seen.append(command.command + QStringLiteral(": ") + command.explanation());
        QVERIFY2(verdict.decision == expected,
                 qPrintable(QStringLiteral("%1 → %2\n%3")
                                .arg(line, policyDecisionName(verdict.decision), seen.join('\n'))));
        // An sh script is judged the same way.
        ActionRequest script = agentExec(line);
        script.kind = ActionKind::Run;
        script.language = QStringLiteral("sh");
        if (environment.isEmpty())
            QCOMPARE(lsEchoRmPolicy().decide(script), expected);
    }

    void verdictListsTheCommandsWithTheirRules()
    {
        const PolicyVerdict verdict = lsEchoRmPolicy().verdict(
            agentExec(QStringLiteral("ls -la; rm -rf /root && eval x | wc")));
        QCOMPARE(verdict.decision, PolicyDecision::Deny);
        QCOMPARE(verdict.denialReason(),
                 QStringLiteral("denied by policy rule 14 (exec,run \"rm *\"): rm -rf /root"));
        QCOMPARE(verdict.commands.size(), 4);
        QCOMPARE(verdict.commands[0].command, QStringLiteral("ls -la"));
        QCOMPARE(verdict.commands[0].explanation(),
                 QStringLiteral("allowed by policy rule 2 (exec,run \"ls *\")"));
        QCOMPARE(verdict.commands[1].command, QStringLiteral("rm -rf /root"));
        QCOMPARE(verdict.commands[1].explanation(),
                 QStringLiteral("denied by policy rule 14 (exec,run \"rm *\")"));
        QCOMPARE(verdict.commands[2].command, QStringLiteral("eval x"));
        QCOMPARE(verdict.commands[2].explanation(),
                 QStringLiteral("eval: the policy cannot see what it runs"));
        QCOMPARE(verdict.commands[3].command, QStringLiteral("wc"));
        QCOMPARE(verdict.commands[3].explanation(), QStringLiteral("no rule: asked"));

        const PolicyVerdict asked =
            lsEchoRmPolicy().verdict(agentExec(QStringLiteral("ls && python3 -c 'print(1)'")));
        QCOMPARE(asked.decision, PolicyDecision::Ask);
        QCOMPARE(asked.command, QStringLiteral("python3 -c print(1)"));
        QCOMPARE(asked.commands[1].explanation(),
                 QStringLiteral("python3 -c: the policy cannot see what the code does"));

        const PolicyVerdict unreadable =
            lsEchoRmPolicy().verdict(agentExec(QStringLiteral("ls (")));
        QCOMPARE(unreadable.commands.size(), 1);
        QCOMPARE(
            unreadable.commands[0].explanation(),
            QStringLiteral("the shell parser cannot read it: 1:1: \"foo(\" must be followed by )"));
    }

    // Allow rules see the canonical form; deny and ask rules every spelling.
    void commandFormsShowAssignmentsNamesAndRedirections()
    {
        const QList<PolicyCommand> commands = policyCommands(
            QStringLiteral("A=1 /bin/r\\m 'x y' 2>/dev/null"), {QStringLiteral("M=2")});
        QCOMPARE(commands.size(), 1);
        QCOMPARE(commands[0].text, QStringLiteral("M=2 A=1 /bin/rm x y 2>/dev/null"));
        for (const char* form :
             {"M=2 A=1 rm x y 2>/dev/null", "rm x y", "/bin/rm x y", "M=2 A=1 /bin/rm x y"})
            QVERIFY2(commands[0].forms.contains(QLatin1String(form)), form);
        QVERIFY(commands[0].askedBecause.isEmpty());

        // A wrapper is a command, and so is what it runs, with the wrapper's assignments.
        const QList<PolicyCommand> wrapped =
            policyCommands(QStringLiteral("env -i B=3 nice -n 5 cat f"));
        QStringList texts;
        for (const PolicyCommand& command : wrapped)
            texts.append(command.text);
        QCOMPARE(texts,
                 QStringList({QStringLiteral("env -i B=3 nice -n 5 cat f"),
                              QStringLiteral("B=3 nice -n 5 cat f"), QStringLiteral("B=3 cat f")}));
        QCOMPARE(policyCommands(QStringLiteral("xargs -n1 grep x"))[1].text,
                 QStringLiteral("grep x …"));
        QCOMPARE(policyCommands(QStringLiteral("[ -f x ]"))[0].askedBecause, QString()); // `[` is a program
        QVERIFY(!policyCommands(QStringLiteral("/bin/[a]b"))[0].askedBecause.isEmpty()); // a glob is not
        // A word with expansions keeps its source text.
        QCOMPARE(policyCommands(QStringLiteral("ls \"$HOME\"/a*"))[0].text,
                 QStringLiteral("ls \"$HOME\"/a*"));
        // An allow rule does not match the spelling with a path or without the assignments.
        Policy policy;
        policy.defaultRules = {{{ActionKind::Exec}, QStringLiteral("rm *"), PolicyDecision::Allow}};
        QCOMPARE(policy.decide(agentExec(QStringLiteral("rm x"))), PolicyDecision::Allow);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("/tmp/rm x"))), PolicyDecision::Ask);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("A=1 rm x"))), PolicyDecision::Ask);
        policy.defaultRules = {
            {{ActionKind::Exec}, QStringLiteral("/usr/bin/python3 *"), PolicyDecision::Deny}};
        QCOMPARE(policy.decide(agentExec(QStringLiteral("/usr/bin/python3 x.py"))),
                 PolicyDecision::Deny);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("python3 x.py"))),
                 PolicyDecision::Ask); // name it python3
    }

    // An allow rule never allows what the policy cannot see; a later deny rule still denies it.
    void unseenCommandsSkipAllowRules()
    {
        Policy policy;
        policy.defaultRules = {
            {{ActionKind::Exec}, QStringLiteral("*"), PolicyDecision::Allow},
            {{ActionKind::Exec}, QStringLiteral("eval *"), PolicyDecision::Deny},
        };
        QCOMPARE(policy.decide(agentExec(QStringLiteral("ls"))), PolicyDecision::Allow);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("eval x"))), PolicyDecision::Deny);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("python3 -c 1"))), PolicyDecision::Ask);
        QCOMPARE(policy.decide(agentExec(QStringLiteral("ls | sh"))), PolicyDecision::Ask);
    }

    // A python script is one subject, matched whole.
    void pythonRunsMatchTheWholeScript()
    {
        Policy policy;
        policy.defaultRules = {
            {{ActionKind::Run}, QStringLiteral("print(*"), PolicyDecision::Allow}};
        ActionRequest run = agentExec(QStringLiteral("print(1); import os"));
        run.kind = ActionKind::Run;
        run.language = QStringLiteral("python");
        QCOMPARE(policy.decide(run), PolicyDecision::Allow);
        QVERIFY(policy.verdict(run).commands.isEmpty());
    }

    void shellSyntaxReadsWordsAndInput()
    {
        const auto commands =
            ShellSyntax::commands(QStringLiteral("X=1 \"a\"b'c' \"$Y\" <<<'ls' 2>e\n"));
        QVERIFY(commands);
        QCOMPARE(commands->size(), 1);
        const ShellCommand& command = commands->first();
        QCOMPARE(command.assignments, QStringList{QStringLiteral("X=1")});
        QCOMPARE(command.words.size(), 2);
        QCOMPARE(command.words[0].text, QStringLiteral("abc"));
        QVERIFY(command.words[0].literal);
        QCOMPARE(command.words[1].text, QStringLiteral("\"$Y\""));
        QVERIFY(!command.words[1].literal);
        QCOMPARE(command.redirections,
                 QStringList({QStringLiteral("<<<'ls'"), QStringLiteral("2>e")}));
        QCOMPARE(command.input, ShellCommand::Input::Text);
        QCOMPARE(command.inputText, QStringLiteral("ls\n"));
        // Source order, parents before what is nested in them.
        const auto ordered = ShellSyntax::commands(QStringLiteral("if a; then b $(c); else d; fi; e"));
        QVERIFY(ordered);
        QStringList programs;
        for (const ShellCommand& c : ordered.value())
            programs.append(c.words.first().text);
        QCOMPARE(programs, QStringList({"a", "b", "c", "d", "e"}));
        // Byte offsets: a multi-byte character before a word with expansions.
        const auto utf8 = ShellSyntax::commands(QStringLiteral("echo \u00e9\u20ac $(x) \"$y\""));
        QVERIFY(utf8);
        QCOMPARE(utf8->first().words[2].text, QStringLiteral("$(x)"));
        QCOMPARE(utf8->first().words[3].text, QStringLiteral("\"$y\""));
        QCOMPARE(utf8->at(1).words[0].text, QStringLiteral("x"));
    }

    // The cost of a check: the median of 100 verdicts on a typical line (a shfmt run each).
    void checkCostIsBelowAFewMilliseconds()
    {
        const Policy policy = lsEchoRmPolicy();
        const ActionRequest request =
            agentExec(QStringLiteral("cd /root/project && ls -la src | grep -v test > files.txt"));
        QList<qint64> microseconds;
        for (int i = 0; i < 100; ++i) {
            QElapsedTimer timer;
            timer.start();
            QCOMPARE(policy.decide(request), PolicyDecision::Ask); // cd and grep have no rule
            microseconds.append(timer.nsecsElapsed() / 1000);
        }
        std::sort(microseconds.begin(), microseconds.end());
        qInfo("median check: %lld us (min %lld, max %lld)", microseconds[50], microseconds.first(),
              microseconds.last());
        QVERIFY2(microseconds[50] < 50'000, qPrintable(QString::number(microseconds[50])));
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
        QVERIFY(policyActionKindNames().endsWith(QLatin1String(", remove, list, network, browse, fork")));
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
                              "hibernate, wake, checkpoint, checkpoint-delete, revert, remove, list, network, browse, fork)");
        QTest::newRow("approval is not a rule's kind")
            << QByteArray("{\"version\": 1, \"default\": [{\"kinds\": [\"approval\"], \"decision\": \"deny\"}]}")
            << QStringLiteral("p.json: default[0].kinds[0]: \"approval\" is not an action kind (%1)")
                   .arg(policyActionKindNames());
        QTest::newRow("pattern") << QByteArray("{\"version\": 1, \"default\": [{\"pattern\": 3, \"decision\": \"deny\"}]}")
                                 << QStringLiteral("p.json: default[0].pattern: must be a non-empty string");
        QTest::newRow("rule field")
            << QByteArray("{\"version\": 1, \"default\": [{\"decison\": \"deny\"}]}")
            << QStringLiteral("p.json: default[0].decison: unknown field (expected kinds, pattern, ports, decision)");
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
