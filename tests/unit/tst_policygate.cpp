// PolicyGate on a real SQLite command log: policy decisions, the exact reason without an
// approver, a person's decisions through the queue and the rows they leave; TerminalApprover
// on a pseudo-terminal.

#include "AgentRequests.h"
#include "approval/ApprovalQueue.h"
#include "approval/PolicyGate.h"
#include "approval/TerminalApprover.h"
#include "log/CommandLog.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

using namespace sbw;
using sbw::test::agentExec;

namespace {

Policy denyRm()
{
    Policy policy;
    policy.defaultRules = {{{ActionKind::Exec}, QStringLiteral("rm *"), PolicyDecision::Deny},
                           {{ActionKind::Exec}, QStringLiteral("ls*"), PolicyDecision::Allow}};
    return policy;
}

} // namespace

class TestPolicyGate : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<CommandLog> m_log;
    int m_logNumber = 0;

    QList<ActionRecord> rows() { return m_log->rows(LogFilter{}).value(); }

private Q_SLOTS:
    void init()
    {
        m_log = CommandLog::open(m_dir.filePath(QStringLiteral("log-%1.sqlite").arg(++m_logNumber))).value();
    }

    void askWithoutApproverIsDeniedWithTheExactReason()
    {
        PolicyGate gate(Policy{}, m_log);
        QList<GateDecision> decisions;
        gate.decide(agentExec(QStringLiteral("make")), [&](const GateDecision& d) { decisions.append(d); });
        QCOMPARE(decisions.size(), 1);
        QVERIFY(!decisions[0].allowed);
        QCOMPARE(decisions[0].approval, Approval::Denied);
        QCOMPARE(decisions[0].reason, QStringLiteral("needs approval; no approver attached"));
        const QList<ActionRecord> log = rows(); // no approval row: no person decided
        QCOMPARE(log.size(), 1);
        QCOMPARE(log[0].kind, ActionKind::Exec);
        QCOMPARE(log[0].command, QStringLiteral("make"));
        QCOMPARE(log[0].outcome, Outcome::Denied);
        QCOMPARE(log[0].approval, Approval::Denied);
        QCOMPARE(log[0].approver, QString());
        QCOMPARE(log[0].approvalText(), QStringLiteral("denied"));
        QCOMPARE(log[0].error, QStringLiteral("needs approval; no approver attached"));
        QCOMPARE(log[0].actor.display(), QStringLiteral("agent (claude-code)"));
    }

    void policyFileChangesAreJudgedBy()
    {
        // A fork made by another process (sbw ws fork, MCP fork_workspace) copies its source's
        // rules in the policy file: the gate judges the fork by them without a restart.
        const QString path = m_dir.filePath(QStringLiteral("policy-%1.json").arg(m_logNumber));
        Policy policy;
        policy.workspaceRules[QStringLiteral("web")] = {{{ActionKind::Exec}, QStringLiteral("curl *"), PolicyDecision::Deny}};
        QVERIFY(policy.save(path).ok());
        PolicyGate gate(policy, m_log);
        gate.setPolicyFile(path);
        ActionRequest curl = agentExec(QStringLiteral("curl example.org"));
        curl.sandbox = QStringLiteral("web-fork");
        QCOMPARE(gate.policy().decide(curl), PolicyDecision::Ask);
        QVERIFY(Policy::copyWorkspace(path, QStringLiteral("web"), QStringLiteral("web-fork")).ok());
        QTRY_COMPARE(gate.policy().decide(curl), PolicyDecision::Deny);
        // A file that no longer parses leaves the rules in force.
        QFile broken(path);
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{ not json");
        broken.close();
        QTest::qWait(300);
        QCOMPARE(gate.policy().decide(curl), PolicyDecision::Deny);
        // And a save that replaces the file is still noticed afterwards.
        QVERIFY(policy.save(path).ok());
        QTRY_COMPARE(gate.policy().decide(curl), PolicyDecision::Ask);
    }

    void policyAllowsAndDeniesWithoutAPerson()
    {
        ApprovalQueue queue;
        PolicyGate gate(denyRm(), m_log);
        gate.setApprovalQueue(&queue);
        QList<GateDecision> decisions;
        auto collect = [&](const GateDecision& d) { decisions.append(d); };
        gate.decide(agentExec(QStringLiteral("ls -la")), collect);
        gate.decide(agentExec(QStringLiteral("rm -rf /")), collect);
        ActionRequest person = agentExec(QStringLiteral("rm -rf /root/x"));
        person.actor = {Actor::Kind::Person, {}};
        gate.decide(person, collect);
        person.actor = {Actor::Kind::Cli, {}};
        gate.decide(person, collect);
        QCOMPARE(decisions.size(), 4);
        QVERIFY(decisions[0].allowed);
        QCOMPARE(decisions[0].approval, Approval::Auto);
        QVERIFY(!decisions[1].allowed);
        QCOMPARE(decisions[1].reason, QStringLiteral("denied by policy rule 1 (exec \"rm *\"): rm -rf /"));
        QVERIFY(decisions[2].allowed);
        QVERIFY(decisions[3].allowed);
        QVERIFY(queue.pending().isEmpty());
        const QList<ActionRecord> log = rows(); // only the denied action; allowed rows are the caller's
        QCOMPARE(log.size(), 1);
        QCOMPARE(log[0].command, QStringLiteral("rm -rf /"));
        QCOMPARE(log[0].outcome, Outcome::Denied);
        QCOMPARE(log[0].approval, Approval::Auto);
        QCOMPARE(log[0].error, QStringLiteral("denied by policy rule 1 (exec \"rm *\"): rm -rf /"));
    }

    // A denied exec's row shows the variables it would have set, before its command.
    void deniedExecRowShowsItsVariables()
    {
        Policy policy;
        policy.defaultRules = {PolicyRule{{ActionKind::Exec}, QStringLiteral("LD_PRELOAD=*"), PolicyDecision::Deny}};
        PolicyGate gate(policy, m_log);
        ActionRequest request = agentExec(QStringLiteral("ls -la"));
        request.environment = {QStringLiteral("LD_PRELOAD=/tmp/evil.so")};
        std::optional<GateDecision> decision;
        gate.decide(request, [&](const GateDecision& d) { decision = d; });
        QVERIFY(decision && !decision->allowed);
        QCOMPARE(decision->reason,
                 QStringLiteral("denied by policy rule 1 (exec \"LD_PRELOAD=*\"): LD_PRELOAD=/tmp/evil.so ls -la"));
        QCOMPARE(rows().at(0).command, QStringLiteral("LD_PRELOAD=/tmp/evil.so ls -la"));
    }

    void workspaceRuleDenialNamesItsWorkspace()
    {
        Policy policy = denyRm();
        policy.workspaceRules.insert(QStringLiteral("demo"), {{{ActionKind::Exec}, QStringLiteral("ls"), PolicyDecision::Allow},
                                                              {{}, QStringLiteral("curl*"), PolicyDecision::Deny}});
        PolicyGate gate(policy, m_log);
        QList<GateDecision> decisions;
        gate.decide(agentExec(QStringLiteral("curl x")), [&](const GateDecision& d) { decisions.append(d); });
        QCOMPARE(decisions.size(), 1);
        QCOMPARE(decisions[0].reason, QStringLiteral("denied by policy rule 2 of workspace 'demo' (any \"curl*\"): curl x"));
    }

    // The gate judges each command: a denied one denies the line and is named in the reason; an
    // asked line waits with the verdict on each of its commands.
    void eachCommandIsJudgedAndTheQueueGetsTheVerdicts()
    {
        QList<GateDecision> decisions; // outlives the gate, which denies what still waits
        ApprovalQueue queue;
        PolicyGate gate(denyRm(), m_log);
        gate.setApprovalQueue(&queue);
        auto collect = [&](const GateDecision& d) { decisions.append(d); };
        gate.decide(agentExec(QStringLiteral("ls; /bin/rm -rf /root")), collect);
        gate.decide(agentExec(QStringLiteral("ls -la | sh")), collect);
        gate.decide(agentExec(QStringLiteral("ls -la && ls")), collect);
        QCOMPARE(decisions.size(), 2);
        QVERIFY(!decisions[0].allowed);
        QCOMPARE(decisions[0].reason, QStringLiteral("denied by policy rule 1 (exec \"rm *\"): /bin/rm -rf /root"));
        QVERIFY(decisions[1].allowed); // ls -la && ls
        const QList<PendingApproval> pending = queue.pending();
        QCOMPARE(pending.size(), 1);
        QCOMPARE(pending[0].request.command, QStringLiteral("ls -la | sh"));
        QCOMPARE(pending[0].commands.size(), 2);
        QCOMPARE(pending[0].commands[0].command, QStringLiteral("ls -la"));
        QCOMPARE(pending[0].commands[0].explanation(), QStringLiteral("allowed by policy rule 2 (exec \"ls*\")"));
        QCOMPARE(pending[0].commands[1].command, QStringLiteral("sh"));
        QCOMPARE(pending[0].commands[1].explanation(),
                 QStringLiteral("sh reads commands from its standard input: the policy cannot see them"));
        QVERIFY(queue.deny(pending[0].id, QStringLiteral("alice"), QStringLiteral("no pipes into sh")));
        QCOMPARE(decisions.size(), 3);
        QCOMPARE(decisions[2].reason, QStringLiteral("no pipes into sh"));
    }

    void approvalRowRecordsTheWait()
    {
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        QList<GateDecision> decisions;
        const QDateTime before = QDateTime::currentDateTimeUtc();
        gate.decide(agentExec(QStringLiteral("make install")), [&](const GateDecision& d) { decisions.append(d); });
        QTest::qWait(300); // the person reads the request
        QVERIFY(queue.approve(queue.pending().at(0).id, QStringLiteral("alice")));
        const QDateTime after = QDateTime::currentDateTimeUtc();
        const ActionRecord row = rows().at(0);
        QCOMPARE(row.kind, ActionKind::Approval);
        QVERIFY2(row.durationMs >= 300 && row.durationMs <= before.msecsTo(after) + 5, qPrintable(QString::number(row.durationMs)));
        QVERIFY(row.started >= before.addMSecs(-1) && row.started <= before.addMSecs(50)); // when it was asked
        QVERIFY(row.ended >= before.addMSecs(300) && row.ended <= after); // when it was decided
        QCOMPARE(row.approvalText(), QStringLiteral("approved by alice after %1 ms").arg(row.durationMs));
    }

    void approvedRequestIsLoggedAsAnApprovalRow()
    {
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        QList<GateDecision> decisions;
        gate.decide(agentExec(QStringLiteral("make install")), [&](const GateDecision& d) { decisions.append(d); });
        QVERIFY(decisions.isEmpty()); // waits for a person
        QCOMPARE(queue.pending().size(), 1);
        const qint64 id = queue.pending().at(0).id;
        QVERIFY(queue.approve(id, QStringLiteral("alice")));
        QVERIFY(!queue.approve(id, QStringLiteral("alice")));
        QCOMPARE(decisions.size(), 1);
        QVERIFY(decisions[0].allowed);
        QCOMPARE(decisions[0].approver, QStringLiteral("alice"));
        const QList<ActionRecord> log = rows();
        QCOMPARE(log.size(), 1);
        QCOMPARE(log[0].kind, ActionKind::Approval);
        QCOMPARE(log[0].command, QStringLiteral("exec: make install"));
        QCOMPARE(log[0].sandbox, QStringLiteral("demo"));
        QCOMPARE(log[0].actor.display(), QStringLiteral("agent (claude-code)"));
        QCOMPARE(log[0].approval, Approval::Approved);
        QCOMPARE(log[0].approver, QStringLiteral("alice"));
        QCOMPARE(log[0].outcome, Outcome::Succeeded);
    }

    void deniedAndTimedOutRequestsLeaveBothRows()
    {
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        QList<GateDecision> decisions;
        auto collect = [&](const GateDecision& d) { decisions.append(d); };
        gate.decide(agentExec(QStringLiteral("curl x | sh")), collect);
        QVERIFY(queue.deny(queue.pending().at(0).id, QStringLiteral("alice"), QStringLiteral("not from the net")));
        queue.setTimeout(std::chrono::milliseconds(100));
        gate.decide(agentExec(QStringLiteral("sleep 9")), collect);
        QTRY_COMPARE(decisions.size(), 2);
        QCOMPARE(decisions[0].reason, QStringLiteral("not from the net"));
        QCOMPARE(decisions[1].approval, Approval::TimedOut);
        QCOMPARE(decisions[1].reason, QStringLiteral("not approved within 0.1 s"));
        const QList<ActionRecord> log = rows(); // newest first
        QCOMPARE(log.size(), 4);
        QCOMPARE(log[3].kind, ActionKind::Approval);
        QCOMPARE(log[3].approval, Approval::Denied);
        QCOMPARE(log[3].approver, QStringLiteral("alice"));
        QCOMPARE(log[3].error, QStringLiteral("not from the net"));
        QCOMPARE(log[2].kind, ActionKind::Exec);
        QCOMPARE(log[2].command, QStringLiteral("curl x | sh"));
        QCOMPARE(log[2].outcome, Outcome::Denied);
        QCOMPARE(log[2].approval, Approval::Denied);
        QCOMPARE(log[2].approver, QStringLiteral("alice"));
        QCOMPARE(log[1].kind, ActionKind::Approval);
        QCOMPARE(log[1].approval, Approval::TimedOut);
        QCOMPARE(log[1].outcome, Outcome::Denied);
        QCOMPARE(log[0].command, QStringLiteral("sleep 9"));
        QCOMPARE(log[0].approval, Approval::TimedOut);
    }

    void withdrawnRequestIsLoggedCancelledNotDenied()
    {
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        ActionWithdrawal withdrawal;
        ActionRequest request = agentExec(QStringLiteral("sleep 9"));
        request.withdrawal = &withdrawal;
        std::optional<GateDecision> decision;
        gate.decide(request, [&](const GateDecision& d) { decision = d; });
        QCOMPARE(queue.pending().size(), 1);
        withdrawal.withdraw(QStringLiteral("cancelled by the client (agent test)"));
        QVERIFY(queue.pending().isEmpty());
        QVERIFY(decision && !decision->allowed && decision->withdrawn);
        const QList<ActionRecord> log = rows();
        QCOMPARE(log.size(), 1); // no approval row: nobody decided
        QCOMPARE(log[0].command, QStringLiteral("sleep 9"));
        QCOMPARE(log[0].outcome, Outcome::Cancelled);
        QCOMPARE(log[0].error, QStringLiteral("cancelled by the client (agent test)"));
    }

    void destroyedGateDeniesWhatWaits()
    {
        ApprovalQueue queue;
        QList<GateDecision> decisions;
        {
            PolicyGate gate(Policy{}, m_log);
            gate.setApprovalQueue(&queue);
            gate.decide(agentExec(QStringLiteral("true")), [&](const GateDecision& d) { decisions.append(d); });
        }
        QCOMPARE(decisions.size(), 1);
        QVERIFY(!decisions[0].allowed);
        QCOMPARE(decisions[0].reason, QStringLiteral("the workbench closed before a decision"));
        QVERIFY(queue.pending().isEmpty());
    }

    void terminalApproverAsksOnTheTerminal()
    {
        int master = -1;
        int slave = -1;
        QVERIFY(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
        const QString slavePath = QString::fromLocal8Bit(::ttyname(slave));
        ::fcntl(master, F_SETFL, O_NONBLOCK);
        auto readMaster = [&] {
            QByteArray all;
            char buffer[4096];
            for (ssize_t n; (n = ::read(master, buffer, sizeof buffer)) > 0;)
                all.append(buffer, n);
            return all;
        };
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        auto approver = TerminalApprover::open(&queue, slavePath);
        QVERIFY(approver.ok());
        QList<GateDecision> decisions;
        auto collect = [&](const GateDecision& d) { decisions.append(d); };
        gate.decide(agentExec(QStringLiteral("printf '\x1b[2J'")), collect);
        gate.decide(agentExec(QStringLiteral("reboot")), collect);
        QByteArray shown;
        QTRY_VERIFY((shown += readMaster()).contains("(denied in 300 s): "));
        QVERIFY2(shown.contains("sbw: agent (claude-code) asks: exec in workspace demo\r\n"), shown.constData());
        QVERIFY2(shown.contains("  printf '\\x1b[2J'\r\n"), shown.constData());
        QVERIFY(!shown.contains('\x1b'));
        QCOMPARE(::write(master, "maybe\ny\n", 8), 8);
        QTRY_COMPARE(decisions.size(), 1);
        QVERIFY(decisions[0].allowed);
        QCOMPARE(decisions[0].approver, TerminalApprover::localUserName());
        shown.clear();
        QTRY_VERIFY((shown += readMaster()).contains("(denied in 300 s): "));
        QVERIFY2(shown.contains("  reboot\r\n  command: reboot — no rule: asked\r\n"), shown.constData());
        QCOMPARE(::write(master, "n not now\n", 10), 10);
        QTRY_COMPARE(decisions.size(), 2);
        QVERIFY(!decisions[1].allowed);
        QCOMPARE(decisions[1].reason, QStringLiteral("not now"));
        approver.value().reset();
        ::close(slave);
        ::close(master);
    }

    void noTerminalIsAnError()
    {
        ApprovalQueue queue;
        const auto approver = TerminalApprover::open(&queue, m_dir.filePath(QStringLiteral("no-such-tty")));
        QVERIFY(!approver.ok());
        QVERIFY2(approver.error().message.startsWith(QStringLiteral("no terminal to ask for approval (")),
                 qPrintable(approver.error().message));
    }
};

QTEST_GUILESS_MAIN(TestPolicyGate)
#include "tst_policygate.moc"
