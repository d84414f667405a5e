// Limits enforced on the host, on real microVMs. One workspace (1 vCPU, CPU share 30 % of one
// host core, 5 GiB disk) runs through the whole executable: its CPU share caps a busy loop (read
// by the stats sampler), network none leaves it only lo, its root file system fills its 5 GiB.
// Beside it, ephemeral runs hit each limit (a fork bomb its timeout, a memory hog the memory
// limit, dd the disk limit, 100 MB of output the output cap, a sleeper the session lifetime);
// each says which limit in its result and in the run pane's status text. While each script runs
// the workspace answers, and afterwards its files are intact. Commands in the workspace hit
// its limits too (timeout, output cap, memory, disk) and name them in their result and in
// their command-log row.

#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "run/EphemeralRun.h"
#include "stats/StatsSampler.h"
#include "widgets/RunStatusText.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommand.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

using namespace std::chrono_literals;

namespace {

const QString kName = QStringLiteral("test-limits");

} // namespace

class TestLimits : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Workspace> m_workspace;
    QByteArray m_keptSum; ///< sha256sum of the workspace's /root/kept.bin
    std::shared_ptr<sbw::CommandLog> m_log;

    struct Captured
    {
        QByteArray out;
        QByteArray err;
        sbw::ExecStatus status;
    };

    /// `command` in the workspace (its shell, in /root).
    Captured inWorkspace(const QByteArray& command)
    {
        Captured c;
        sbw::ExecRequest request;
        request.command = command;
        request.timeout = 60s;
        request.onStdout = [&](QByteArrayView bytes) { c.out.append(bytes); };
        request.onStderr = [&](QByteArrayView bytes) { c.err.append(bytes); };
        auto status = m_workspace->exec(request, std::chrono::steady_clock::now() + 180s);
        if (status)
            c.status = status.value();
        else
            c.err = status.error().message.toUtf8();
        return c;
    }

    /// A run, and how the workspace answered `echo ok` while the run's script ran.
    struct Beside
    {
        sbw::RunResult result;
        QByteArray echo;      ///< the workspace's answer, asked `into` after the script started
        qint64 echoMs = -1;   ///< how long it took; -1 when the script ended before
    };

    /// Runs `options` in a fresh microVM on a worker thread and, `into` after its script
    /// started, runs `echo ok` in the workspace.
    Beside runBeside(const sbw::RunOptions& options, std::chrono::milliseconds into = 3s)
    {
        Beside beside;
        std::atomic_bool running{false};
        std::atomic_bool done{false};
        sbw::RunCallbacks callbacks;
        callbacks.onPhase = [&](sbw::RunPhase phase) {
            if (phase == sbw::RunPhase::Running)
                running = true;
        };
        std::thread worker([&] {
            beside.result = sbw::runEphemeral(*m_connection, options, callbacks, nullptr);
            done = true;
        });
        while (!running && !done)
            std::this_thread::sleep_for(100ms);
        std::this_thread::sleep_for(into);
        if (!done) {
            QElapsedTimer answer;
            answer.start();
            beside.echo = inWorkspace("echo ok").out;
            beside.echoMs = answer.elapsed();
        }
        worker.join();
        const sbw::RunResult& r = beside.result;
        qInfo() << "result:" << r.summary() << "boot" << r.bootMs << "ms, script" << r.wallMs
                << "ms, total" << r.totalMs << "ms; workspace answered in" << beside.echoMs << "ms";
        return beside;
    }

    /// The workspace kept running beside the run: it answered while the script ran (when the
    /// script was still running), answers now, and its files are as they were.
    void workspaceIsIntact(const Beside& beside)
    {
        if (beside.echoMs >= 0) {
            QCOMPARE(beside.echo, QByteArray("ok\n"));
            QVERIFY2(beside.echoMs < 10000, qPrintable(QString::number(beside.echoMs)));
        }
        QElapsedTimer answer;
        answer.start();
        const Captured echo = inWorkspace("echo ok");
        QCOMPARE(echo.out, QByteArray("ok\n"));
        QVERIFY2(answer.elapsed() < 5000, qPrintable(QString::number(answer.elapsed())));
        QCOMPARE(inWorkspace("sha256sum /root/kept.bin").out, m_keptSum);
    }

    /// `command` in the workspace through runWorkspaceCommand(), logged in m_log.
    std::pair<sbw::WorkspaceCommandResult, QByteArray> limited(const QByteArray& command,
                                                               std::chrono::seconds timeout,
                                                               qint64 outputCap)
    {
        sbw::WorkspaceCommandOptions options;
        options.command = QString::fromUtf8(command);
        options.shellCommand = command;
        options.workdir = QStringLiteral("/root");
        options.timeout = timeout;
        options.outputCapBytes = outputCap;
        options.readyDeadline = std::chrono::steady_clock::now() + 120s;
        options.log = m_log;
        QByteArray out;
        options.onOutput = [&](sbw::OutputStream stream, QByteArrayView bytes) {
            if (stream == sbw::OutputStream::Stdout)
                out.append(bytes);
        };
        const sbw::WorkspaceCommandResult result = sbw::runWorkspaceCommand(*m_workspace, options);
        qInfo() << "workspace command:" << result.summary() << result.wallMs << "ms";
        return {result, out};
    }

    /// The newest command-log row of the workspace.
    sbw::ActionRecord lastRow()
    {
        sbw::LogFilter filter;
        filter.sandbox = kName;
        const auto rows = m_log->rows(filter, 1);
        return rows && !rows.value().isEmpty() ? rows.value().first() : sbw::ActionRecord{};
    }

    void removeLeftover()
    {
        if (auto old = sbw::Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8()); // own records and key
        auto log = sbw::CommandLog::open(m_data.filePath(QStringLiteral("log.sqlite")));
        QVERIFY(log.ok());
        m_log = log.value();
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        removeLeftover();
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        settings.cpuSharePercent = 30;
        settings.diskGiB = 5;
        auto created = sbw::Workspace::create(*m_connection, kName, settings);
        QVERIFY2(created.ok(), created ? "" : qPrintable(created.error().message));
        m_workspace = std::move(created.value());
        QCOMPARE(m_workspace->record().settings.cpuSharePercent, 30);
        QVERIFY(m_workspace->start().ok());
        const Captured kept =
            inWorkspace("head -c 1048576 /dev/urandom > kept.bin && sync && sha256sum /root/kept.bin");
        QVERIFY2(kept.status.exitStatus == 0, kept.err.constData());
        m_keptSum = kept.out;
    }

    void cleanupTestCase()
    {
        m_workspace.reset();
        if (m_connection)
            removeLeftover();
    }

    void workspaceFillsItsDisk()
    {
        // The guest grew ext4 online to the 5 GiB overlay; ext4's own metadata takes a little.
        const Captured df = inWorkspace("df -B1 --output=size / | tail -n 1");
        const qint64 bytes = df.out.trimmed().toLongLong();
        QVERIFY2(bytes > (qint64(47) << 30) / 10 && bytes <= qint64(5) << 30, df.out.constData());
    }

    void cpuShareCapsABusyLoop()
    {
        sbw::StatsSampler sampler(m_connection.get());
        QSignalSpy ticks(&sampler, &sbw::StatsSampler::sampled);
        inWorkspace("yes >/dev/null 2>&1 </dev/null & exit 0");
        sampler.start();
        while (ticks.size() < 6)
            QVERIFY(ticks.wait(5000));
        sampler.stop();
        inWorkspace("pkill yes; exit 0");
        QStringList figures;
        double sum = 0;
        int count = 0;
        for (const QList<QVariant>& args : std::as_const(ticks).mid(2)) {
            for (const sbw::SandboxSample& s :
                 args.constFirst().value<sbw::StatsTick>().sandboxes) {
                if (s.name != m_workspace->record().domainName || !s.cpuPercent)
                    continue;
                figures << QString::number(*s.cpuPercent, 'f', 1);
                sum += *s.cpuPercent;
                ++count;
            }
        }
        QVERIFY2(count >= 3, qPrintable(figures.join(' ')));
        // 30 % of one core for the vCPU threads; QEMU's other threads add a little.
        QVERIFY2(sum / count <= 38.0 && sum / count >= 15.0, qPrintable(figures.join(' ')));
    }

    void networkNoneHasOnlyLoopback()
    {
        const Captured links = inWorkspace("exec ls /sys/class/net");
        QCOMPARE(links.out, QByteArray("lo\n"));
        const Captured connect = inWorkspace("exec python3 -c 'import socket; s=socket.socket(); "
                                             "s.settimeout(5); s.connect((\"1.1.1.1\", 80))'");
        QCOMPARE(connect.status.exitStatus, std::optional<int>(1));
        QVERIFY2(connect.err.contains("Network is unreachable"), connect.err.constData());
    }

    void workspaceCommandsNameTheirLimit()
    {
        // Timeout: the command is killed; the row says so.
        auto [timedOut, timedOutput] = limited("sleep 30", 2s, 0);
        QVERIFY2(timedOut.error.isEmpty(), qPrintable(timedOut.error));
        QCOMPARE(timedOut.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Timeout));
        QCOMPARE(timedOut.summary(), QStringLiteral("the timeout of 2 s ran out; the command was killed"));
        QCOMPARE(timedOut.cliExitCode(), 124);
        QCOMPARE(lastRow().outcome, sbw::Outcome::TimedOut);
        QCOMPARE(lastRow().error, timedOut.summary());

        // Output cap: exactly the cap passes, the rest is dropped and the command killed.
        auto [capped, cappedOutput] = limited("exec yes", 0s, 65536);
        QCOMPARE(capped.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::OutputCap));
        QCOMPARE(cappedOutput, QByteArray("y\n").repeated(32768));
        QCOMPARE(capped.summary(), QStringLiteral("stdout passed the output cap of 65536 bytes; "
                                                  "the rest was dropped and the command killed"));
        QCOMPARE(capped.cliExitCode(), 137);
        QCOMPARE(lastRow().outcome, sbw::Outcome::Failed);
        QCOMPARE(lastRow().error, capped.summary());
        QCOMPARE(lastRow().stdoutBytes, qint64(65536));

        // Memory: the guest's OOM killer ends the hog.
        auto [hog, hogOutput] = limited(
            "exec python3 -c \"chunks = []\nwhile True:\n    chunks.append(b'x' * (8 << 20))\"", 120s, 0);
        QCOMPARE(hog.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Memory));
        QVERIFY2(hog.summary().startsWith(QLatin1String(
                     "the memory limit of 256 MiB was hit: the guest's kernel killed python3 (pid ")),
                 qPrintable(hog.summary()));
        QCOMPARE(hog.status.signal, std::optional<int>(9));
        QCOMPARE(lastRow().error, hog.summary());
        // A later failure is not blamed on that old kill.
        std::this_thread::sleep_for(4s);
        auto [plain, plainOutput] = limited("exit 3", 0s, 0);
        QCOMPARE(plain.limit, std::optional<sbw::RunLimit>());
        QCOMPARE(plain.summary(), QStringLiteral("exit status 3"));
        QCOMPARE(lastRow().error, QString());

        // Disk: fallocate takes all but 64 MiB (fast), dd writes until no byte fits.
        auto [full, fullOutput] = limited(
            "fallocate -l $(($(stat -f -c '%a * %S' /) - 67108864)) /root/taken && "
            "exec dd if=/dev/zero of=/root/fill bs=4M",
            120s, 0);
        QCOMPARE(full.status.exitStatus, std::optional<int>(1));
        QCOMPARE(full.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Disk));
        QCOMPARE(full.summary(), QStringLiteral("the disk limit of 5 GiB was hit: the workspace's "
                                                "root file system is full"));
        QCOMPARE(lastRow().error, full.summary());
        QCOMPARE(inWorkspace("rm -f /root/taken /root/fill && sync").status.exitStatus,
                 std::optional<int>(0));
        QCOMPARE(inWorkspace("sha256sum /root/kept.bin").out, m_keptSum);
    }

    void forkBombEndsByItsTimeout()
    {
        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        // The script's own shell spins on builtins after starting the bomb: it needs no fork or
        // exec, so it outlives the timeout however the bomb's population grows or dies out
        // (a bomb alone can collapse before the timeout and exit 0).
        options.code = "bomb() { bomb | bomb & }; bomb; while :; do :; done\n";
        options.timeout = 10s;
        // The bomb can leave the guest no process to run the kill with; the run then ends by
        // destroying the microVM, still as a timeout.
        const Beside beside = runBeside(options, 6s);
        const sbw::RunResult& result = beside.result;
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Timeout));
        QVERIFY(result.timedOut);
        QCOMPARE(result.cliExitCode(), 124);
        QVERIFY2(sbw::resultText(result).startsWith(QLatin1String("Timed out after ")),
                 qPrintable(sbw::resultText(result)));
        QVERIFY(beside.echoMs >= 0);
        workspaceIsIntact(beside);
    }

    void memoryHogHitsTheMemoryLimit()
    {
        sbw::RunOptions options;
        options.code = "chunks = []\nwhile True:\n    chunks.append(b'x' * (8 << 20))\n";
        options.sandbox.memoryMiB = 256;
        const Beside beside = runBeside(options);
        const sbw::RunResult& result = beside.result;
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Memory));
        QCOMPARE(result.signal, std::optional<int>(9));
        QCOMPARE(result.cliExitCode(), 137);
        QVERIFY2(result.summary().startsWith(
                     QLatin1String("the memory limit of 256 MiB was hit: the guest's kernel "
                                   "killed python3 (pid ")),
                 qPrintable(result.summary()));
        const QString status = sbw::resultText(result);
        QVERIFY2(status.startsWith(QLatin1String("The memory limit of 256 MiB was hit")) &&
                     status.contains(QLatin1String("killed by signal 9 (SIGKILL)")),
                 qPrintable(status));
        workspaceIsIntact(beside);
    }

    void diskFullIsReported()
    {
        // Writing all 3.5 GiB takes 90 s under TCG, so fallocate takes all but the last 64 MiB
        // first (ext4 counts it as used, nothing is written), and dd writes until no byte fits.
        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        options.code = "fallocate -l $(($(stat -f -c '%a * %S' /) - 67108864)) /root/taken\n"
                       "exec dd if=/dev/zero of=/root/fill bs=4M\n";
        options.timeout = 120s;
        const Beside beside = runBeside(options, 1s);
        const sbw::RunResult& result = beside.result;
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.exitStatus, std::optional<int>(1));
        QVERIFY2(result.stderrData.contains("No space left on device"), result.stderrData.constData());
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Disk));
        QCOMPARE(result.summary(), QStringLiteral("the disk limit of 4 GiB was hit: the guest's "
                                                  "root file system is full"));
        QVERIFY2(sbw::resultText(result).startsWith(
                     QStringLiteral("The disk limit of 4 GiB was hit: the guest's root file system "
                                   "is full · exit status 1 · restored from the saved microVM in ")),
                 qPrintable(sbw::resultText(result)));
        QCOMPARE(result.cliExitCode(), 1);
        workspaceIsIntact(beside);
    }

    void outputCapEndsAHundredMegabytes()
    {
        // 100 MB on stdout against the default cap of 64 MiB per stream.
        sbw::RunOptions options;
        options.code = "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 1000000)\n";
        options.timeout = 120s;
        const qint64 cap = sbw::RunOptions::kDefaultOutputCapBytes;
        const Beside beside = runBeside(options, 1s);
        const sbw::RunResult& result = beside.result;
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::OutputCap));
        QCOMPARE(result.stdoutData.size(), qsizetype(cap));
        QCOMPARE(result.stdoutData, QByteArray(cap, 'x'));
        QCOMPARE(result.summary(), QStringLiteral("stdout passed the output cap of 67108864 bytes; "
                                                  "the rest was dropped and the script killed"));
        QVERIFY2(sbw::resultText(result).startsWith(
                     QLatin1String("Stdout passed the output cap of 67108864 bytes")),
                 qPrintable(sbw::resultText(result)));
        QCOMPARE(result.cliExitCode(), 137);
        QVERIFY(!result.cancelled);
        QVERIFY(!result.timedOut);
        workspaceIsIntact(beside);
    }

    void lifetimeEndsTheRun()
    {
        sbw::RunOptions options;
        options.code = "import time\ntime.sleep(300)\n";
        options.timeout = 120s;
        options.lifetime = 25s;
        const Beside beside = runBeside(options);
        const sbw::RunResult& result = beside.result;
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Lifetime));
        QVERIFY(result.timedOut);
        QCOMPARE(result.cliExitCode(), 124);
        QCOMPARE(result.summary(),
                 QStringLiteral("the session lifetime of 25 s ran out; the script was killed"));
        QVERIFY2(result.totalMs < 25000 + 15000, qPrintable(QString::number(result.totalMs)));
        workspaceIsIntact(beside);
    }
};

QTEST_GUILESS_MAIN(TestLimits)
#include "tst_limits.moc"
