// Preview in the approval queue on a real guest: an agent asks to `rm important.txt` in a
// workspace; Preview runs it in a throwaway fork without network and the detail lists the
// deletion with its size and the lost line; Deny then leaves the file where it was and the fork is gone. A second request, approved
// as previewed, leaves the workspace as the preview showed and gives the agent the preview's
// output without running it again.

#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "approval/ApprovalQueuePane.h"
#include "approval/PolicyGate.h"
#include "base/Async.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "preview/ActionPreview.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceDomains.h"

#include <QPlainTextEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace sbw;

namespace {

const QString kName = QStringLiteral("test-preview-pane");

ActionRequest agentAsks(const QString& command)
{
    ActionRequest request;
    request.sandbox = kName;
    request.actor = {Actor::Kind::Agent, QStringLiteral("claude-code")};
    request.kind = ActionKind::Exec;
    request.command = command;
    return request;
}

QPushButton* button(ApprovalQueuePane& pane, const QString& text)
{
    for (QPushButton* b : pane.findChildren<QPushButton*>())
        if (b->text() == text)
            return b;
    return nullptr;
}

/// The window's approval path: a gate that asks for every command, its queue, the pane.
struct Approvals
{
    explicit Approvals(std::shared_ptr<CommandLog> log) : gate(Policy{}, std::move(log)), pane(&queue)
    {
        gate.setApprovalQueue(&queue);
    }

    ApprovalQueue queue;
    PolicyGate gate;
    ApprovalQueuePane pane;
};

} // namespace

class TestApprovalPreview : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<HypervisorConnection> m_connection;
    std::shared_ptr<Workspace> m_workspace;
    std::shared_ptr<CommandLog> m_log;

    QStringList previewDomains()
    {
        QStringList names;
        if (auto records = listWorkspaceRecords(m_connection->handle()))
            for (const WorkspaceRecord& record : records.value())
                if (record.name.startsWith(QLatin1String("preview-")) && record.origin.workspace == kName)
                    names << record.name;
        return names;
    }

    void attachRunner(ApprovalQueuePane& pane)
    {
        pane.setPreviewRunner([this](const ActionRequest& request) {
            return runAsync([workspace = m_workspace, request, log = m_log]() -> Expected<std::shared_ptr<ActionPreview>> {
                auto preview = ActionPreview::run(workspace, request, log);
                if (!preview)
                    return preview.error();
                return std::shared_ptr<ActionPreview>(std::move(preview.value()));
            });
        });
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        m_log = CommandLog::open(m_data.filePath(QStringLiteral("command-log.sqlite"))).value();
        m_connection = std::make_unique<HypervisorConnection>(test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        if (auto old = Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
        WorkspaceSettings settings;
        settings.memoryMiB = 256;
        auto created = Workspace::create(*m_connection, kName, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_workspace = std::move(created.value());
        QVERIFY(m_workspace->start().ok());
        // A workspace is "starting" until its guest agent connects, and a fork refuses it then.
        QTRY_COMPARE_WITH_TIMEOUT(m_workspace->state(), WorkspaceState::Running, 60000);
        QCOMPARE(test::shellOutput(*m_workspace, QStringLiteral("printf 'do not lose me\\n' > /root/important.txt")),
                 QByteArray());
    }

    void cleanupTestCase()
    {
        if (m_workspace)
            QVERIFY(m_workspace->remove().ok());
    }

    void previewShowsTheDeletionAndDenyLeavesTheFile()
    {
        Approvals approvals(m_log);
        ApprovalQueuePane& pane = approvals.pane;
        PolicyGate& gate = approvals.gate;
        attachRunner(pane);
        pane.resize(900, 700);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QList<GateDecision> decisions;
        gate.decide(agentAsks(QStringLiteral("rm important.txt")), [&](const GateDecision& d) { decisions << d; });
        QCOMPARE(pane.list()->topLevelItemCount(), 1);
        QPushButton* preview = button(pane, QStringLiteral("Preview"));
        QPushButton* asPreviewed = button(pane, QStringLiteral("Approve as Previewed"));
        QVERIFY(preview && preview->isVisible() && preview->isEnabled());
        QVERIFY(!asPreviewed->isEnabled());
        preview->click();
        QVERIFY(!preview->isEnabled());
        QTRY_VERIFY2_WITH_TIMEOUT(pane.detail()->toPlainText().contains(QStringLiteral("── Preview in fork")),
                                  qPrintable(pane.detail()->toPlainText()), 120000);
        const QString detail = pane.detail()->toPlainText();
        QVERIFY2(detail.contains(QLatin1String("exit status 0\n")), qPrintable(detail));
        QVERIFY2(detail.contains(QStringLiteral("1 file changed (0 created, 0 modified, 1 deleted)\n"
                                                  "  deleted /root/important.txt  (15 B → —)\n"
                                                  "--- /root/important.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-do not lose me\n"
                                                  "no new processes left running\n")),
                 qPrintable(detail));
        QVERIFY(asPreviewed->isEnabled());
        QCOMPARE(previewDomains().size(), 1);
        QString screenshotDir = QStringLiteral(SBW_SCREENSHOT_DIR);
        pane.grab().save(screenshotDir + QStringLiteral("/approval-preview.png"));

        pane.denyCurrent();
        QCOMPARE(decisions.size(), 1);
        QVERIFY(!decisions.first().allowed);
        QTRY_VERIFY_WITH_TIMEOUT(previewDomains().isEmpty(), 60000);
        QCOMPARE(test::shellOutput(*m_workspace, QStringLiteral("cat /root/important.txt")), QByteArray("do not lose me\n"));
    }

    void approveAsPreviewedLeavesTheWorkspaceAsShown()
    {
        Approvals approvals(m_log);
        ApprovalQueuePane& pane = approvals.pane;
        PolicyGate& gate = approvals.gate;
        attachRunner(pane);
        pane.resize(900, 700);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QList<GateDecision> decisions;
        gate.decide(agentAsks(QStringLiteral("echo once >> runs.txt; cat runs.txt")),
                    [&](const GateDecision& d) { decisions << d; });
        button(pane, QStringLiteral("Preview"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(pane.detail()->toPlainText().contains(QStringLiteral("── Preview in fork")), 120000);
        QVERIFY2(pane.detail()->toPlainText().contains(QStringLiteral("created /root/runs.txt  (— → 5 B)")),
                 qPrintable(pane.detail()->toPlainText()));
        button(pane, QStringLiteral("Approve as Previewed"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(decisions.size(), 1, 120000);
        QVERIFY(decisions.first().allowed);
        QCOMPARE(decisions.first().approval, Approval::Approved);
        QVERIFY(decisions.first().previewed.has_value());
        QCOMPARE(decisions.first().previewed->stdoutBytes, QByteArray("once\n"));
        QCOMPARE(decisions.first().previewed->exitStatus, std::optional<int>(0));
        // The workspace is what the preview showed: the line written once, not twice.
        QCOMPARE(test::shellOutput(*m_workspace, QStringLiteral("cat /root/runs.txt")), QByteArray("once\n"));
        QCOMPARE(test::shellOutput(*m_workspace, QStringLiteral("cat /root/important.txt")), QByteArray("do not lose me\n"));
        QTRY_VERIFY_WITH_TIMEOUT(previewDomains().isEmpty(), 60000);
    }
};

QTEST_MAIN(TestApprovalPreview)
#include "tst_approvalpreview.moc"
