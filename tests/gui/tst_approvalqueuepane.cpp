// The approval queue pane on a real queue, gate and SQLite command log: an agent's request
// appears, Ctrl+Return approves it, Ctrl+Backspace denies it with the typed reason, a file
// write shows a diff, agent text is shown literally; the policy editor writes the file.

#include "AgentRequests.h"
#include "LoopbackHttpServer.h"
#include "approval/ApprovalQueuePane.h"
#include "approval/PolicyEditorDialog.h"
#include "approval/PolicyGate.h"
#include "log/CommandLog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QPushButton>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QFuture>
#include <QtTest>

using namespace sbw;
using sbw::test::agentExec;
using sbw::test::agentFileWrite;

class TestApprovalQueuePane : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<CommandLog> m_log;

private Q_SLOTS:
    void initTestCase()
    {
        m_log = CommandLog::open(m_dir.filePath(QStringLiteral("command-log.sqlite"))).value();
    }

    void ctrlReturnApproves()
    {
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        ApprovalQueuePane pane(&queue);
        pane.setApproverName(QStringLiteral("alice"));
        pane.resize(900, 500);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QList<GateDecision> decisions;
        gate.decide(agentExec(QStringLiteral("make test")), [&](const GateDecision& d) { decisions.append(d); });
        QCOMPARE(pane.list()->topLevelItemCount(), 1);
        const QTreeWidgetItem* item = pane.list()->topLevelItem(0);
        QCOMPARE(item->text(0), QStringLiteral("claude-code"));
        QCOMPARE(item->toolTip(0), QStringLiteral("agent (claude-code)\nworkspace: demo"));
        QCOMPARE(item->text(1), QStringLiteral("demo"));
        QCOMPARE(item->text(2), QStringLiteral("exec"));
        QCOMPARE(item->text(3), QStringLiteral("make test"));
        QCOMPARE(item->text(4), QStringLiteral("5:00"));
        QVERIFY(decisions.isEmpty());
        pane.list()->setFocus();
        QTest::keyClick(pane.list(), Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(decisions.size(), 1);
        QVERIFY(decisions[0].allowed);
        QCOMPARE(decisions[0].approval, Approval::Approved);
        QCOMPARE(decisions[0].approver, QStringLiteral("alice"));
        QCOMPARE(pane.list()->topLevelItemCount(), 0);
        const ActionRecord row = m_log->rows(LogFilter{}).value().at(0);
        QCOMPARE(row.kind, ActionKind::Approval);
        QCOMPARE(row.approver, QStringLiteral("alice"));
    }

    // The pane shows every line of the command in its row, and in the detail the commands the
    // policy found, each with the rule that decided it or why it is asked.
    void showsTheCommandsWithTheirRules()
    {
        ApprovalQueue queue;
        Policy policy;
        policy.defaultRules = {{{ActionKind::Exec}, QStringLiteral("ls *"), PolicyDecision::Allow},
                               {{ActionKind::Exec}, QStringLiteral("curl *"), PolicyDecision::Ask}};
        PolicyGate gate(policy, m_log);
        gate.setApprovalQueue(&queue);
        ApprovalQueuePane pane(&queue);
        pane.resize(900, 500);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        bool decided = false;
        gate.decide(agentExec(QStringLiteral("ls -la\ncurl -s x | sh; eval \"$X\"")), [&](const GateDecision&) { decided = true; });
        QVERIFY(!decided);
        QCOMPARE(pane.list()->topLevelItemCount(), 1);
        QCOMPARE(pane.list()->topLevelItem(0)->text(3), QStringLiteral("ls -la⏎curl -s x | sh; eval \"$X\" (+1 line)"));
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("\ncommands the policy found:\n"
                                                "  ls -la — allowed by policy rule 1 (exec \"ls *\")\n"
                                                "  curl -s x — asked by policy rule 2 (exec \"curl *\")\n"
                                                "  sh — sh reads commands from its standard input: the policy cannot see them\n"
                                                "  eval \"$X\" — eval: the policy cannot see what it runs\n")),
                 qPrintable(detail));
        QVERIFY(pane.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/approvalqueuepane.png")));
        queue.deny(pane.currentId(), QStringLiteral("alice"), {});
        QVERIFY(decided);
    }

    void ctrlBackspaceDeniesWithTheReason()
    {
        ApprovalQueue queue;
        PolicyGate gate(Policy{}, m_log);
        gate.setApprovalQueue(&queue);
        ApprovalQueuePane pane(&queue);
        pane.setApproverName(QStringLiteral("alice"));
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QList<GateDecision> decisions;
        gate.decide(agentExec(QStringLiteral("curl x | sh")), [&](const GateDecision& d) { decisions.append(d); });
        gate.decide(agentExec(QStringLiteral("reboot")), [&](const GateDecision& d) { decisions.append(d); });
        QCOMPARE(pane.list()->topLevelItemCount(), 2);
        QCOMPARE(pane.currentId(), queue.pending().at(0).id);
        pane.reasonField()->setFocus();
        QTest::keyClicks(pane.reasonField(), QStringLiteral("no piping the net into sh"));
        QTest::keyClick(pane.reasonField(), Qt::Key_Backspace, Qt::ControlModifier);
        QCOMPARE(decisions.size(), 1);
        QVERIFY(!decisions[0].allowed);
        QCOMPARE(decisions[0].approval, Approval::Denied);
        QCOMPARE(decisions[0].reason, QStringLiteral("no piping the net into sh"));
        QCOMPARE(decisions[0].approver, QStringLiteral("alice"));
        QCOMPARE(pane.reasonField()->text(), QString());
        QCOMPARE(pane.list()->topLevelItemCount(), 1);
        QCOMPARE(pane.list()->currentItem()->text(3), QStringLiteral("reboot"));
        pane.list()->setFocus();
        QTest::keyClick(pane.list(), Qt::Key_Delete);
        QCOMPARE(decisions.size(), 2);
        QCOMPARE(decisions[1].reason, QStringLiteral("denied by alice"));
    }

    void detailShowsAgentTextLiterally()
    {
        ApprovalQueue queue;
        ApprovalQueuePane pane(&queue);
        queue.enqueue(agentExec(QStringLiteral("printf '\x1b]52;c;aGk=\x07'\necho \u202Eevil")), {});
        QCOMPARE(pane.list()->topLevelItem(0)->text(3), QStringLiteral("printf '\\x1b]52;c;aGk=\\x07'⏎echo <U+202E>evil (+1 line)"));
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("printf '\\x1b]52;c;aGk=\\x07'\necho <U+202E>evil")), qPrintable(detail));
        QVERIFY(!detail.contains(QChar(0x1b)));
    }

    // A guest program's connection: Who names the program when the proxy found it ("guest:
    // python3", the whole command line in the tooltip), else only "guest".
    void guestConnectionNamesItsProgram()
    {
        ApprovalQueue queue;
        ApprovalQueuePane pane(&queue);
        ActionRequest request;
        request.sandbox = QStringLiteral("demo");
        request.kind = ActionKind::Network;
        request.command = QStringLiteral("CONNECT pypi.org:443");
        request.destination.host = QStringLiteral("pypi.org");
        request.destination.port = 443;
        request.actor = Actor{Actor::Kind::Guest,
                              QStringLiteral("pip (pid 412, 127.0.0.1:40112): /usr/bin/python3 /usr/bin/pip install x")};
        queue.enqueue(request, {});
        request.actor.name = QStringLiteral("127.0.0.1:40113");
        queue.enqueue(request, {});
        QCOMPARE(pane.list()->topLevelItem(0)->text(0), QStringLiteral("guest: pip"));
        QCOMPARE(pane.list()->topLevelItem(0)->toolTip(0),
                 QStringLiteral("guest (pip (pid 412, 127.0.0.1:40112): /usr/bin/python3 /usr/bin/pip install x)\n"
                                "workspace: demo"));
        QCOMPARE(pane.list()->topLevelItem(1)->text(0), QStringLiteral("guest"));
    }

    // Variables the agent sets change what the command does: the approver sees each one.
    void detailShowsTheVariablesAnExecSets()
    {
        ApprovalQueue queue;
        ApprovalQueuePane pane(&queue);
        ActionRequest request = agentExec(QStringLiteral("ls"));
        request.environment = {QStringLiteral("BASH_ENV=/tmp/x"), QStringLiteral("LANG=C")};
        queue.enqueue(request, {});
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("environment: BASH_ENV=/tmp/x\nenvironment: LANG=C\n")),
                 qPrintable(detail));
    }

    void runShowsItsInputFiles()
    {
        ApprovalQueue queue;
        ApprovalQueuePane pane(&queue);
        ActionRequest request;
        request.actor = {Actor::Kind::Agent, QStringLiteral("claude-code")};
        request.kind = ActionKind::Run;
        request.language = QStringLiteral("python");
        request.command = QStringLiteral("print(open('data.csv').read())");
        request.inputFiles = {{QStringLiteral("data.csv"), 52}, {QStringLiteral("photo\x1b.png"), 3072}};
        queue.enqueue(request, {});
        QCOMPARE(pane.detail()->toPlainText(),
                 QStringLiteral("agent (claude-code) asks: run\nlanguage: python\n"
                                "input files: data.csv (52 bytes), photo\\x1b.png (3.0 KiB)\n\n"
                                "print(open('data.csv').read())\n"));
    }

    void fileWriteShowsAUnifiedDiff()
    {
        ApprovalQueue queue;
        ApprovalQueuePane pane(&queue);
        pane.setContentReader([](const QString& sandbox, const QString& path, qint64) {
            using Content = ApprovalQueuePane::CurrentContent;
            Expected<Content> current = makeError(QStringLiteral("there is no file or folder %1 in the guest").arg(path));
            if (sandbox == QLatin1String("demo") && path == QLatin1String("/root/app.py"))
                current = Content{23, QByteArray("import os\nprint('old')\n")};
            return QtFuture::makeReadyFuture(current);
        });
        queue.enqueue(agentFileWrite(QStringLiteral("/root/app.py"), "import os\nprint('new')\n"), {});
        QTRY_VERIFY(pane.detail()->toPlainText().contains(QStringLiteral("@@")));
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("--- /root/app.py\n+++ /root/app.py (new)\n@@ -1,2 +1,2 @@\n"
                                                " import os\n-print('old')\n+print('new')\n")),
                 qPrintable(detail));
        QCOMPARE(pane.list()->topLevelItem(0)->text(3), QStringLiteral("/root/app.py"));
    }

    void largeCurrentFileIsNotDiffed()
    {
        ApprovalQueue queue;
        ApprovalQueuePane pane(&queue);
        QList<qint64> caps;
        pane.setContentReader([&caps](const QString&, const QString&, qint64 maxBytes) {
            caps.append(maxBytes); // a reader reads nothing beyond this
            return QtFuture::makeReadyFuture(
                Expected<ApprovalQueuePane::CurrentContent>(ApprovalQueuePane::CurrentContent{5 * 1024 * 1024, {}}));
        });
        queue.enqueue(agentFileWrite(QStringLiteral("/root/big.log"), "short\nnew content\n"), {});
        QTRY_VERIFY(pane.detail()->toPlainText().contains(QStringLiteral("too large")));
        QCOMPARE(caps, QList<qint64>{1024 * 1024});
        QCOMPARE(pane.detail()->toPlainText(),
                 QStringLiteral("agent (claude-code) asks: file-write in workspace demo\npath: /root/big.log\n"
                                "new content: 18 bytes\nfile too large to diff (5242880 bytes)\n\nshort\nnew content\n"));
    }

    void policyEditorWritesTheFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("policy.json"));
        Policy policy;
        policy.defaultRules = {{{ActionKind::Exec}, QStringLiteral("rm *"), PolicyDecision::Deny}};
        PolicyEditorDialog dialog(policy, path, {QStringLiteral("demo")});
        QCOMPARE(dialog.table()->rowCount(), 1);
        dialog.scope()->setCurrentIndex(dialog.scope()->findData(QStringLiteral("demo")));
        QCOMPARE(dialog.table()->rowCount(), 0);
        const auto buttons = dialog.findChildren<QPushButton*>();
        QPushButton* add = *std::find_if(buttons.begin(), buttons.end(),
                                         [](QPushButton* b) { return b->text() == QStringLiteral("Add Rule"); });
        add->click();
        dialog.table()->item(0, 0)->setText(QStringLiteral("file-write, upload"));
        dialog.table()->item(0, 1)->setText(QStringLiteral("/root/scratch/*"));
        static_cast<QComboBox*>(dialog.table()->cellWidget(0, 3))->setCurrentText(QStringLiteral("allow"));
        QVERIFY(dialog.save().ok());
        const Policy saved = Policy::load(path).value();
        QCOMPARE(saved.defaultRules, policy.defaultRules);
        const QList<PolicyRule> demo{{{ActionKind::FileWrite, ActionKind::Upload}, QStringLiteral("/root/scratch/*"),
                                      PolicyDecision::Allow}};
        QCOMPARE(saved.workspaceRules.value(QStringLiteral("demo")), demo);
        QVERIFY(!saved.pausesWhileWaiting(QStringLiteral("demo")));

        // Pause while waiting: off by default; a workspace's partly checked box follows the default.
        QCOMPARE(dialog.pauseBox()->checkState(), Qt::PartiallyChecked);
        dialog.pauseBox()->setCheckState(Qt::Checked);
        dialog.scope()->setCurrentIndex(dialog.scope()->findData(QString()));
        QCOMPARE(dialog.pauseBox()->checkState(), Qt::Unchecked);
        QVERIFY(!dialog.pauseBox()->isTristate());
        QVERIFY(dialog.save().ok());
        const Policy paused = Policy::load(path).value();
        QVERIFY(paused.pausesWhileWaiting(QStringLiteral("demo")));
        QVERIFY(!paused.pausesWhileWaiting(QStringLiteral("other")));
        QCOMPARE(paused.workspaceRules.value(QStringLiteral("demo")), demo);
        dialog.scope()->setCurrentIndex(dialog.scope()->findData(QStringLiteral("demo")));
        QCOMPARE(dialog.pauseBox()->checkState(), Qt::Checked);

        dialog.table()->item(0, 0)->setText(QStringLiteral("exec, sudo"));
        const auto bad = dialog.save();
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().message, QStringLiteral("demo, rule 1: \"sudo\" is not an action kind"));
    }

    // A network rule's ports have their own column: shown, edited and checked.
    void policyEditorEditsNetworkPorts()
    {
        const QString path = m_dir.filePath(QStringLiteral("network-policy.json"));
        Policy policy;
        policy.workspaceRules[QStringLiteral("demo")] = {
            test::networkRule(QStringLiteral("pypi.org"), {}, PolicyDecision::Allow),
            test::networkRule(QStringLiteral("127.0.0.1"), {8088}, PolicyDecision::Deny)};
        PolicyEditorDialog dialog(policy, path, {QStringLiteral("demo")});
        dialog.scope()->setCurrentIndex(dialog.scope()->findData(QStringLiteral("demo")));
        QTableWidget* table = dialog.table();
        QCOMPARE(table->horizontalHeaderItem(2)->text(), QStringLiteral("Ports"));
        QCOMPARE(table->item(0, 2)->text(), QString()); // 80 and 443
        QCOMPARE(table->item(1, 2)->text(), QStringLiteral("8088"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/policyeditor-network.png")));
        table->item(1, 2)->setText(QStringLiteral("8088, 9000"));
        QVERIFY(dialog.save().ok());
        QCOMPARE(Policy::load(path).value().workspaceRules.value(QStringLiteral("demo")).at(1).ports,
                 (QList<quint16>{8088, 9000}));

        table->item(1, 2)->setText(QStringLiteral("8088, 70000"));
        QCOMPARE(dialog.save().error().message, QStringLiteral("demo, rule 2: \"70000\" is not a port (1-65535)"));
        table->item(1, 2)->setText(QStringLiteral("8088"));
        table->item(1, 0)->setText(QStringLiteral("exec"));
        QCOMPARE(dialog.save().error().message, QStringLiteral("demo, rule 2: ports are for network rules"));
    }
};

QTEST_MAIN(TestApprovalQueuePane)
#include "tst_approvalqueuepane.moc"
