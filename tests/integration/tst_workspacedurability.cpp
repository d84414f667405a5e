// Nothing a workspace's guest wrote is lost, as a user would try it on a real guest: a file
// written right after the first boot survives a stop, also with no guest agent connected, so
// does one written a second before a stop, one written before a hibernate, one written a moment
// before a checkpoint (the revert shows it) and every file of a chain of pause, resume,
// hibernate, wake, checkpoint and a restart of the workbench. Every stop is graceful, says so,
// leaves a clean root file system (no journal recovery at the next boot, also with a file
// held open for writing), and `sbw ws stop`
// prints and logs the same outcome; a forced stop says that writes may be lost.

#include "CommandLogRows.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "log/CommandLog.h"
#include "workspace/Workspace.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <libvirt/libvirt.h>

namespace {

const QString kName = QStringLiteral("test-durable");

} // namespace

class TestWorkspaceDurability : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Workspace> m_workspace;

    /// Runs `shellCommand` in the guest; its stdout, or the error text when it fails.
    QByteArray run(const QString& shellCommand) { return sbw::test::shellOutput(*m_workspace, shellCommand); }

    /// Writes `content` to /root/NAME without any sync.
    void write(const QString& name, const QByteArray& content)
    {
        QCOMPARE(run(QStringLiteral("printf '%s' '%1' > /root/%2")
                         .arg(QString::fromUtf8(content), name)),
                 QByteArray());
    }

    /// A graceful stop: not forced, the guest asked the way `expected` says (any way when
    /// unset), the domain off.
    void stopGracefully(std::optional<sbw::StopRequest> expected)
    {
        auto stopped = m_workspace->stop();
        QVERIFY2(stopped.ok(), stopped ? "" : qPrintable(stopped.error().message));
        qInfo("stop: %s", qPrintable(stopped->summary()));
        QVERIFY2(!stopped->forced, qPrintable(stopped->summary()));
        QVERIFY(stopped->request.has_value());
        if (expected)
            QCOMPARE(stopped->request, expected);
        QVERIFY(stopped->summary().startsWith(QLatin1String("shut down cleanly in ")));
        QCOMPARE(m_workspace->state(), sbw::WorkspaceState::Stopped);
    }

    /// Boots and checks that the root file system was left clean: ext4 logs "recovery
    /// complete" when it replays a journal that a power-off without unmount left behind.
    void startAndCheckCleanRoot()
    {
        QVERIFY(m_workspace->start().ok());
        QCOMPARE(run(QStringLiteral("dmesg | grep -c 'EXT4-fs (vda): recovery complete' || true")),
                 QByteArray("0\n"));
    }

    /// Until the guest agent is connected, a started, woken or reverted workspace is
    /// "starting", and pause, hibernate and checkpoint refuse it.
    void waitUntilRunning()
    {
        QTRY_COMPARE_WITH_TIMEOUT(m_workspace->state(), sbw::WorkspaceState::Running, 60000);
    }

    void reopen()
    {
        m_workspace.reset();
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        auto opened = sbw::Workspace::open(*m_connection, kName);
        QVERIFY2(opened.ok(), opened ? "" : qPrintable(opened.error().message));
        m_workspace = std::move(opened.value());
    }

    void removeLeftover()
    {
        if (auto old = sbw::Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8()); // own key, records and command log
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        removeLeftover();
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        auto created = sbw::Workspace::create(*m_connection, kName, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_workspace = std::move(created.value());
    }

    void cleanupTestCase()
    {
        m_workspace.reset();
        if (m_connection)
            removeLeftover();
    }

    void firstBootWriteSurvivesStop()
    {
        // The reported case: boot, write as soon as SSH answers, stop at once. The guest agent
        // starts beside sshd at a lower priority and is usually not connected yet (the next
        // case makes sure of that); the stop must be clean either way.
        QVERIFY(m_workspace->start().ok());
        write(QStringLiteral("first"), "written right after the first boot\n");
        qInfo("agent connected at the stop: %s",
              m_workspace->state() == sbw::WorkspaceState::Running ? "yes" : "no");
        stopGracefully(std::nullopt);
        startAndCheckCleanRoot();
        QCOMPARE(run(QStringLiteral("cat /root/first")),
                 QByteArray("written right after the first boot\n"));
    }

    void writeWithoutAgentSurvivesStop()
    {
        // A guest whose agent is not connected: its respawn loop and qemu-ga are ended, the
        // agent channel shows disconnected (state "starting"), and the stop goes over SSH.
        QCOMPARE(
            run(QStringLiteral("agent=$(pidof qemu-ga); read -r _ _ _ loop _ </proc/$agent/stat; "
                               "kill $loop $agent")),
            QByteArray());
        QTRY_COMPARE_WITH_TIMEOUT(m_workspace->state(), sbw::WorkspaceState::Starting, 30000);
        write(QStringLiteral("agentless"), "no agent to ask\n");
        stopGracefully(sbw::StopRequest::Ssh);
        startAndCheckCleanRoot();
        QCOMPARE(run(QStringLiteral("cat /root/agentless")), QByteArray("no agent to ask\n"));
    }

    void fileHeldOpenForWritingStillStopsClean()
    {
        // A program that keeps a file on / open for writing (a log, an editor) while the guest
        // shuts down: its writes are kept and / is still left clean, since the guest's shutdown
        // ends it before the read-only remount.
        waitUntilRunning();
        QCOMPARE(run(QStringLiteral("sh -c 'exec 3>>/root/held; echo held open >&3; "
                                    "while :; do sleep 1; done' </dev/null >/dev/null 2>&1 &")),
                 QByteArray());
        QCOMPARE(run(QStringLiteral("cat /root/held")), QByteArray("held open\n"));
        stopGracefully(sbw::StopRequest::GuestAgent);
        startAndCheckCleanRoot();
        QCOMPARE(run(QStringLiteral("cat /root/held")), QByteArray("held open\n"));
    }

    void writeOneSecondBeforeCliStopSurvives()
    {
        // Through the agent this time (connected by now), from `sbw ws stop` as a user types it.
        waitUntilRunning();
        write(QStringLiteral("late"), "one second before the stop\n");
        QTest::qWait(1000);
        m_workspace->closeSession(); // the CLI takes an SSH port of its own
        QProcess cli;
        cli.start(QStringLiteral(SBW_CLI_PATH),
                  {QStringLiteral("ws"), QStringLiteral("stop"), kName});
        QVERIFY(cli.waitForFinished(120000));
        const QByteArray err = cli.readAllStandardError();
        QCOMPARE(cli.readAllStandardOutput(), QByteArray("test-durable: stopped\n"));
        QVERIFY2(err.startsWith("sbw: shut down cleanly in ") &&
                     err.endsWith(" s (asked through its guest agent)\n"),
                 err.constData());
        QCOMPARE(cli.exitCode(), 0);

        // Its command-log row says the same.
        const auto logged = sbw::test::newestRow(kName);
        QVERIFY(logged);
        QCOMPARE(logged->row.kind, sbw::ActionKind::Stop);
        QCOMPARE(logged->row.actor.kind, sbw::Actor::Kind::Cli);
        QCOMPARE(logged->row.outcome, sbw::Outcome::Succeeded);
        QCOMPARE(logged->row.error, QString());
        QCOMPARE(logged->stdoutText, err.mid(int(qstrlen("sbw: "))));

        startAndCheckCleanRoot();
        QCOMPARE(run(QStringLiteral("cat /root/late")), QByteArray("one second before the stop\n"));
    }

    void writeSurvivesHibernateAndWake()
    {
        waitUntilRunning();
        write(QStringLiteral("hibernated"), "before the hibernate\n");
        QVERIFY(m_workspace->hibernate().ok());
        QCOMPARE(m_workspace->state(), sbw::WorkspaceState::Hibernated);
        QVERIFY(m_workspace->wake().ok());
        QCOMPARE(run(QStringLiteral("cat /root/hibernated")), QByteArray("before the hibernate\n"));
    }

    void checkpointAMomentLaterKeepsTheWrite()
    {
        waitUntilRunning();
        write(QStringLiteral("checkpointed"), "a moment before the checkpoint\n");
        QVERIFY(m_workspace->checkpoint(QStringLiteral("moment"), QString()).ok());
        write(QStringLiteral("checkpointed"), "after the checkpoint\n");
        QVERIFY(m_workspace->revert(QStringLiteral("moment")).ok());
        QCOMPARE(run(QStringLiteral("cat /root/checkpointed")),
                 QByteArray("a moment before the checkpoint\n"));
    }

    void checkpointsOfOneSecondFollowTheirChain()
    {
        // Paused checkpoints take well under a second: several share a creationTime.
        waitUntilRunning();
        QVERIFY(m_workspace->pause().ok());
        const QStringList taken{QStringLiteral("s3"), QStringLiteral("s1"), QStringLiteral("s2")};
        for (const QString& name : taken)
            QVERIFY(m_workspace->checkpoint(name, QString()).ok());
        auto timeline = m_workspace->checkpoints();
        QVERIFY(timeline.ok());
        QStringList names;
        for (const auto& info : timeline.value())
            names << info.name;
        QCOMPARE(names, QStringList{QStringLiteral("moment")} + taken);
        auto impact = m_workspace->revertImpact(QStringLiteral("s1"));
        QVERIFY(impact.ok());
        QCOMPARE(impact->laterCheckpoints, 1);
        for (const QString& name : taken)
            QVERIFY(m_workspace->deleteCheckpoint(name).ok());
        QVERIFY(m_workspace->resume().ok());
    }

    void chainKeepsEveryWrite()
    {
        waitUntilRunning();
        write(QStringLiteral("c1"), "before pause\n");
        QVERIFY(m_workspace->pause().ok());
        QVERIFY(m_workspace->resume().ok());
        write(QStringLiteral("c2"), "after resume\n");
        QVERIFY(m_workspace->hibernate().ok());
        QVERIFY(m_workspace->wake().ok());
        write(QStringLiteral("c3"), "after wake\n");
        waitUntilRunning();
        QVERIFY(m_workspace->checkpoint(QStringLiteral("chain"), QString()).ok());
        write(QStringLiteral("c4"), "after checkpoint\n");
        reopen(); // the workbench restarted: new connection, new Workspace
        write(QStringLiteral("c5"), "after the restart\n");
        waitUntilRunning();
        stopGracefully(sbw::StopRequest::GuestAgent);
        reopen();
        startAndCheckCleanRoot();
        QCOMPARE(run(QStringLiteral(
                     "cd /root && cat first late hibernated checkpointed c1 c2 c3 c4 c5")),
                 QByteArray("written right after the first boot\none second before the stop\n"
                            "before the hibernate\na moment before the checkpoint\nbefore pause\n"
                            "after resume\nafter wake\nafter checkpoint\nafter the restart\n"));
        waitUntilRunning();
        stopGracefully(sbw::StopRequest::GuestAgent);
    }

    void forcedStopSaysSo()
    {
        // No grace: the guest is not asked and is pulled off at once; the CLI, its exit status
        // and the command-log row say that writes may be lost.
        QVERIFY(m_workspace->start().ok());
        QCOMPARE(run(QStringLiteral("echo up")), QByteArray("up\n"));
        m_workspace->closeSession();
        QProcess cli;
        cli.start(QStringLiteral(SBW_CLI_PATH),
                  {QStringLiteral("ws"), QStringLiteral("stop"), kName, QStringLiteral("--grace"),
                   QStringLiteral("0")});
        QVERIFY(cli.waitForFinished(120000));
        const QByteArray summary =
            "forced off at once (grace 0 s): the guest was not asked to shut down; writes it "
            "had not flushed may be lost";
        QCOMPARE(cli.readAllStandardOutput(), QByteArray("test-durable: stopped\n"));
        QCOMPARE(cli.readAllStandardError(), "sbw: warning: " + summary + "\n");
        QCOMPARE(cli.exitCode(), 1);
        const auto logged = sbw::test::newestRow(kName);
        QVERIFY(logged);
        QCOMPARE(logged->row.kind, sbw::ActionKind::Stop);
        QCOMPARE(logged->row.outcome, sbw::Outcome::Failed);
        QCOMPARE(logged->row.error, QString::fromUtf8(summary));
        QCOMPARE(logged->stdoutText, summary + "\n");
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceDurability)
#include "tst_workspacedurability.moc"
