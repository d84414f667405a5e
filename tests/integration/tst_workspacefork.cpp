// Forks and previews on real guests, as a user would try them: a fork of a running workspace
// keeps its background process and files, writes in one never appear in the other, a fork
// from a checkpoint has that checkpoint's files, deleting the source leaves the fork working
// (and the base image in place); a preview of `rm important.txt` lists the deletion and, once
// discarded (Deny), leaves the file where it was; a preview reaches no network; approve-as-previewed leaves the workspace as
// the preview showed, its new process running.

#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "log/CommandLog.h"
#include "log/LoggedAction.h"
#include "mcp/McpTools.h"
#include "preview/ActionPreview.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceDomains.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kSource = QStringLiteral("test-fork-src");
const QString kFork = QStringLiteral("test-fork-a");
const QString kFromCheckpoint = QStringLiteral("test-fork-b");
const QString kTicker = QStringLiteral("setsid sh -c 'while :; do sleep 1; done' >/dev/null 2>&1 </dev/null & echo $!");

} // namespace

class TestWorkspaceFork : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::shared_ptr<sbw::Workspace> m_source;
    std::shared_ptr<sbw::Workspace> m_fork;
    QByteArray m_tickerPid;

    static QByteArray run(sbw::Workspace& workspace, const QString& command)
    {
        return sbw::test::shellOutput(workspace, command);
    }

    void removeLeftovers()
    {
        for (const QString& name : {kSource, kFork, kFromCheckpoint})
            if (auto old = sbw::Workspace::open(*m_connection, name))
                QVERIFY(old.value()->remove().ok());
    }

    bool exists(const QString& name) { return sbw::Workspace::open(*m_connection, name).ok(); }

    /// Until its guest agent is connected a started or restored workspace is "starting", and
    /// checkpoint and fork refuse it (as after a boot, the agent connects after sshd).
    static void waitUntilRunning(sbw::Workspace& workspace)
    {
        QTRY_COMPARE_WITH_TIMEOUT(workspace.state(), sbw::WorkspaceState::Running, 60000);
    }

    /// A preview of exec `command`, asked in the fork (running, as a preview needs).
    sbw::Expected<std::unique_ptr<sbw::ActionPreview>> previewInFork(const QString& command)
    {
        sbw::ActionRequest request;
        request.sandbox = kFork;
        request.kind = sbw::ActionKind::Exec;
        request.command = command;
        waitUntilRunning(*m_fork);
        return sbw::ActionPreview::run(m_fork, request, nullptr);
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        removeLeftovers();
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        settings.network = sbw::WorkspaceNetwork::Nat; // a preview must reach nothing through it
        auto created = sbw::Workspace::create(*m_connection, kSource, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_source = std::move(created.value());
        QVERIFY(m_source->start().ok());
        QCOMPARE(run(*m_source, QStringLiteral("printf 'kept\\n' > /root/keep.txt")), QByteArray());
        m_tickerPid = run(*m_source, kTicker).trimmed();
        QVERIFY(!m_tickerPid.isEmpty());
    }

    void cleanupTestCase()
    {
        m_source.reset();
        m_fork.reset();
        if (m_connection)
            removeLeftovers();
    }

    void forkOfRunningWorkspaceKeepsProcessesAndFiles()
    {
        waitUntilRunning(*m_source);
        auto forked = m_source->fork(kFork);
        QVERIFY2(forked.ok(), forked ? "" : qPrintable(forked.error().message));
        m_fork = std::move(forked.value());
        QCOMPARE(m_fork->state(), sbw::WorkspaceState::Running);
        QCOMPARE(m_fork->record().origin.workspace, kSource);
        QCOMPARE(m_fork->record().origin.describe(), QStringLiteral("fork of %1").arg(kSource));
        // The background process goes on in the fork, as in the source.
        const QString alive = QStringLiteral("kill -0 %1 && echo alive").arg(QString::fromLatin1(m_tickerPid));
        QCOMPARE(run(*m_fork, alive), QByteArray("alive\n"));
        QCOMPARE(run(*m_source, alive), QByteArray("alive\n"));
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/keep.txt")), QByteArray("kept\n"));
        // Writes in one never appear in the other.
        QCOMPARE(run(*m_fork, QStringLiteral("echo fork > /root/only-fork")), QByteArray());
        QCOMPARE(run(*m_source, QStringLiteral("echo source > /root/only-source")), QByteArray());
        QCOMPARE(run(*m_source, QStringLiteral("ls /root/only-fork 2>&1 || true")),
                 QByteArray("ls: cannot access '/root/only-fork': No such file or directory\n"));
        QCOMPARE(run(*m_fork, QStringLiteral("ls /root/only-source 2>&1 || true")),
                 QByteArray("ls: cannot access '/root/only-source': No such file or directory\n"));
        // The checkpoint taken to carry the memory is gone from both.
        QCOMPARE(m_source->checkpoints()->size(), 0);
        QCOMPARE(m_fork->checkpoints()->size(), 0);
    }

    void forkFromCheckpointHasItsFiles()
    {
        QCOMPARE(run(*m_source, QStringLiteral("echo v1 > /root/version")), QByteArray());
        waitUntilRunning(*m_source); // restored after the last fork's copy
        QVERIFY(m_source->checkpoint(QStringLiteral("v1"), QStringLiteral("first")).ok());
        QCOMPARE(run(*m_source, QStringLiteral("echo v2 > /root/version")), QByteArray());
        waitUntilRunning(*m_source);
        auto forked = m_source->fork(kFromCheckpoint, {QStringLiteral("v1"), true});
        QVERIFY2(forked.ok(), forked ? "" : qPrintable(forked.error().message));
        QCOMPARE(forked.value()->record().origin.checkpoint, QStringLiteral("v1"));
        QCOMPARE(run(*forked.value(), QStringLiteral("cat /root/version")), QByteArray("v1\n"));
        QCOMPARE(run(*m_source, QStringLiteral("cat /root/version")), QByteArray("v2\n"));
        // The fork lists the source's checkpoints, and can go back to them itself.
        auto checkpoints = forked.value()->checkpoints();
        QVERIFY(checkpoints.ok());
        QCOMPARE(checkpoints->size(), 1);
        QCOMPARE(checkpoints->first().name, QStringLiteral("v1"));
        QVERIFY(forked.value()->remove().ok());
        QVERIFY(!exists(kFromCheckpoint));
        QCOMPARE(run(*m_source, QStringLiteral("cat /root/version")), QByteArray("v2\n"));
    }

    void deletingTheSourceLeavesTheForkWorking()
    {
        const QString base = m_source->record().imageBuildId + QLatin1String("-base.qcow2");
        QVERIFY(m_source->remove().ok());
        m_source.reset();
        QVERIFY(!exists(kSource));
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/keep.txt /root/only-fork")), QByteArray("kept\nfork\n"));
        auto pool = sbw::StoragePool::open(m_connection->handle(), true);
        QVERIFY(pool.ok());
        QVERIFY(pool->volumeNames(base).contains(base));
    }

    void previewOfDeletionThenDenyLeavesTheFile()
    {
        QCOMPARE(run(*m_fork, QStringLiteral("printf 'do not lose me\\n' > /root/important.txt")), QByteArray());
        auto preview = previewInFork(QStringLiteral("rm important.txt"));
        QVERIFY2(preview.ok(), preview ? "" : qPrintable(preview.error().message));
        const sbw::PreviewReport& report = preview.value()->report();
        QCOMPARE(report.command.status.exitStatus, std::optional<int>(0));
        QVERIFY2(report.command.fileChanges.tracked, qPrintable(report.command.fileChanges.unknown));
        QCOMPARE(report.command.fileChanges.files.size(), 1);
        const sbw::FileChange& change = report.command.fileChanges.files.first();
        QCOMPARE(change.path, QStringLiteral("/root/important.txt"));
        QCOMPARE(change.kind, sbw::ChangeKind::Deleted);
        QCOMPARE(change.sizeBefore, qint64(15));
        QVERIFY2(report.newProcesses.isEmpty(), qPrintable(report.newProcesses.join(QLatin1String(" | "))));
        QVERIFY(exists(report.fork));
        const QString fork = report.fork;
        QVERIFY(preview.value()->discard().ok()); // Deny
        QVERIFY(!exists(fork));
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/important.txt")), QByteArray("do not lose me\n"));
    }

    void previewReachesNoNetwork()
    {
        // A listener on the host's loopback, which QEMU's user-mode network offers the guest as
        // 10.0.2.2: the workspace reaches it, a preview of the same command does not.
        QTcpServer host;
        QVERIFY(host.listen(QHostAddress::LocalHost));
        const QString connect = QStringLiteral("timeout 5 bash -c 'exec 3<>/dev/tcp/10.0.2.2/%1' "
                                               "&& echo reached || echo unreached")
                                    .arg(host.serverPort());
        QCOMPARE(run(*m_fork, connect), QByteArray("reached\n"));
        QVERIFY(host.waitForNewConnection(5000));
        delete host.nextPendingConnection();

        auto preview = previewInFork(connect);
        QVERIFY2(preview.ok(), preview ? "" : qPrintable(preview.error().message));
        QCOMPARE(preview.value()->report().stdoutBytes, QByteArray("unreached\n"));
        QVERIFY(!host.waitForNewConnection(1000));
        QVERIFY(preview.value()->discard().ok());
    }

    void approveAsPreviewedIsRefusedAfterACheckpoint()
    {
        auto preview = previewInFork(QStringLiteral("rm important.txt"));
        QVERIFY2(preview.ok(), preview ? "" : qPrintable(preview.error().message));
        // A checkpoint taken meanwhile would be lost with the workspace's state: refused.
        waitUntilRunning(*m_fork);
        QVERIFY(m_fork->checkpoint(QStringLiteral("meanwhile"), QString()).ok());
        auto outcome = preview.value()->adopt();
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.error().message,
                 QStringLiteral("workspace '%1' took checkpoint 'meanwhile' after the fork: taking the fork's "
                                "state would lose it").arg(kFork));
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/important.txt")), QByteArray("do not lose me\n"));
        QVERIFY(preview.value()->discard().ok());
        QVERIFY(m_fork->deleteCheckpoint(QStringLiteral("meanwhile")).ok());
    }

    void approveAsPreviewedLeavesTheWorkspaceAsShown()
    {
        auto preview = previewInFork(QStringLiteral("echo made > made.txt; rm important.txt; "
                                                    "setsid sleep 777 >/dev/null 2>&1 </dev/null & echo started"));
        QVERIFY2(preview.ok(), preview ? "" : qPrintable(preview.error().message));
        const sbw::PreviewReport report = preview.value()->report();
        QCOMPARE(report.stdoutBytes, QByteArray("started\n"));
        QCOMPARE(report.command.fileChanges.files.size(), 2);
        QCOMPARE(report.command.fileChanges.files.at(0).path, QStringLiteral("/root/important.txt"));
        QCOMPARE(report.command.fileChanges.files.at(0).kind, sbw::ChangeKind::Deleted);
        QCOMPARE(report.command.fileChanges.files.at(1).path, QStringLiteral("/root/made.txt"));
        QCOMPARE(report.command.fileChanges.files.at(1).kind, sbw::ChangeKind::Created);
        QCOMPARE(report.command.fileChanges.files.at(1).sizeAfter, qint64(5));
        QVERIFY2(report.newProcesses.size() == 1, qPrintable(report.newProcesses.join(QLatin1String(" | "))));
        QVERIFY2(report.newProcesses.first().endsWith(QLatin1String(" sleep 777")), qPrintable(report.newProcesses.first()));
        // The workspace is untouched until the person decides.
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/important.txt")), QByteArray("do not lose me\n"));
        auto outcome = preview.value()->adopt();
        QVERIFY2(outcome.ok(), outcome ? "" : qPrintable(outcome.error().message));
        QCOMPARE(outcome->exitStatus, std::optional<int>(0));
        QCOMPARE(outcome->stdoutBytes, QByteArray("started\n"));
        QVERIFY(!exists(report.fork));
        QCOMPARE(m_fork->state(), sbw::WorkspaceState::Running);
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/made.txt; ls /root/important.txt 2>&1; pgrep -x sleep -a | grep -c 'sleep 777'")),
                 QByteArray("made\nls: cannot access '/root/important.txt': No such file or directory\n1\n"));
        QCOMPARE(run(*m_fork, QStringLiteral("cat /root/keep.txt")), QByteArray("kept\n"));
    }

    void checkpointBeforeEachApprovedAction()
    {
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("command-log.sqlite")));
        QVERIFY(log.ok());
        sbw::McpCall call;
        call.request.sandbox = kFork;
        call.request.kind = sbw::ActionKind::Exec;
        call.request.command = QStringLiteral("rm -rf build");
        sbw::ActionStart start;
        start.sandbox = kFork;
        start.actor = {sbw::Actor::Kind::Agent, QStringLiteral("claude-code")};
        start.command = call.request.command;
        sbw::LoggedAction row(log.value(), start);
        call.log = &row;
        call.approval = sbw::Approval::Approved;
        const qsizetype before = m_fork->checkpoints()->size();
        waitUntilRunning(*m_fork);
        // Off by default: nothing is taken.
        auto none = sbw::checkpointBeforeApproved(*m_fork, call);
        QVERIFY(none.ok());
        QCOMPARE(none.value(), QString());
        QVERIFY(m_fork->setCheckpointBeforeApproved(true).ok());
        QCOMPARE(sbw::loadCheckpointBeforeApproved(kFork).value(), true);
        // An action allowed by policy (not a person's approval) gets none either.
        call.approval = sbw::Approval::Auto;
        QCOMPARE(sbw::checkpointBeforeApproved(*m_fork, call).value(), QString());
        call.approval = sbw::Approval::Approved;
        auto taken = sbw::checkpointBeforeApproved(*m_fork, call);
        QVERIFY2(taken.ok(), taken ? "" : qPrintable(taken.error().message));
        const QString name = QStringLiteral("before-%1").arg(row.id());
        QCOMPARE(taken.value(), name);
        auto checkpoints = m_fork->checkpoints();
        QCOMPARE(checkpoints->size(), before + 1);
        QCOMPARE(checkpoints->last().name, name);
        QCOMPARE(checkpoints->last().note, QStringLiteral("before log row %1, approved: exec rm -rf build").arg(row.id()));
        // The setting survives a change of the variables, which rewrites the record.
        sbw::WorkspaceEnvironment environment;
        QVERIFY(environment.set(QStringLiteral("A"), QStringLiteral("1"), false).ok());
        QVERIFY(m_fork->setEnvironment(environment).ok());
        QCOMPARE(sbw::loadCheckpointBeforeApproved(kFork).value(), true);
        QVERIFY(m_fork->setCheckpointBeforeApproved(false).ok());
        QCOMPARE(sbw::loadCheckpointBeforeApproved(kFork).value(), false);
        QCOMPARE(sbw::loadWorkspaceEnvironment(kFork)->toJson().size(), 1);
        row.finish({});
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceFork)
#include "tst_workspacefork.moc"
