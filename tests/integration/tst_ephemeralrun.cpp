// Whole ephemeral runs: a fresh microVM per case, destroyed afterwards. Every case runs twice:
// in a booted microVM and in one restored from the saved ready state (SandboxSource), which must
// give exactly the same results.

#include "TestEnvironment.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "run/EphemeralRun.h"
#include "sandbox/SandboxPool.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

#include <libvirt/libvirt.h>

using namespace std::chrono_literals;

namespace {

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}

QString writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

/// virDomainGetState() of the domain `name` (VIR_DOMAIN_*), or -1 when there is none.
int domainState(const QString& name)
{
    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (!connection.ensureOpen())
        return -1;
    virDomainPtr domain = virDomainLookupByName(connection.handle(), name.toUtf8().constData());
    if (!domain)
        return -1;
    int state = -1;
    if (virDomainGetState(domain, &state, nullptr, 0) < 0)
        state = -1;
    virDomainFree(domain);
    return state;
}

QByteArray sha256Hex(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

} // namespace

class TestEphemeralRun : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;

    /// RunOptions of this row: booted or restored.
    static sbw::RunOptions newOptions()
    {
        QFETCH_GLOBAL(bool, restored);
        sbw::RunOptions options;
        options.source = restored ? sbw::SandboxSource::Restore : sbw::SandboxSource::Boot;
        return options;
    }

    sbw::RunResult run(sbw::Language language, const QByteArray& code,
                       std::chrono::seconds timeout = 60s, const std::atomic_bool* cancel = nullptr,
                       const QString& recipe = QStringLiteral("minimal"))
    {
        sbw::RunOptions options = newOptions();
        options.language = language;
        options.code = code;
        options.timeout = timeout;
        options.sandbox.recipe = recipe;
        return sbw::runEphemeral(*m_connection, options, {}, cancel);
    }

private Q_SLOTS:
    void initTestCase_data()
    {
        QTest::addColumn<bool>("restored");
        QTest::newRow("booted") << false;
        QTest::newRow("restored") << true;
    }

    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
    }

    // After every case nothing of the run is left: no domain, no overlay.
    void cleanup()
    {
        QCOMPARE(sbw::test::runDomains(m_connection->uri()), QStringList());
        QCOMPARE(sbw::test::runOverlays(m_connection->uri()), QStringList());
    }

    void pythonOutputIsExact()
    {
        const sbw::RunResult result = run(sbw::Language::Python, "print(6*7)\n");
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.stdoutData, QByteArray("42\n"));
        QCOMPARE(result.stderrData, QByteArray());
        QCOMPARE(result.exitStatus, std::optional<int>(0));
        QVERIFY(result.bootMs > 0);
        QVERIFY(result.totalMs >= result.bootMs + result.wallMs);
        QVERIFY(result.domainName.startsWith(QLatin1String("sbw-run-")));
        QFETCH_GLOBAL(bool, restored);
        QCOMPARE(result.restored, restored);
    }

    void twentyMegabytesOfOutputAreExact()
    {
        const sbw::RunResult result = run(sbw::Language::Python,
                                          "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 81920)\n"
                                          "sys.stderr.write('done\\n')\n");
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QByteArray allBytes(256, Qt::Uninitialized);
        for (int b = 0; b < 256; ++b)
            allBytes[b] = char(b);
        const QByteArray expected = allBytes.repeated(81920);
        QCOMPARE(result.stdoutData.size(), expected.size());
        QCOMPARE(sha256Hex(result.stdoutData), sha256Hex(expected));
        QCOMPARE(result.stderrData, QByteArray("done\n"));
        QCOMPARE(result.exitStatus, std::optional<int>(0));
    }

    void pythonTracebackGoesToStderr()
    {
        const sbw::RunResult result = run(sbw::Language::Python, "print('before')\nraise SystemExit('boom')\n");
        QCOMPARE(result.stdoutData, QByteArray("before\n"));
        QCOMPARE(result.stderrData, QByteArray("boom\n"));
        QCOMPARE(result.exitStatus, std::optional<int>(1));
    }

    void shellExitStatus()
    {
        const sbw::RunResult result = run(sbw::Language::Shell, "echo hi\nexit 3\n");
        QCOMPARE(result.stdoutData, QByteArray("hi\n"));
        QCOMPARE(result.exitStatus, std::optional<int>(3));
        QCOMPARE(result.cliExitCode(), 3);
    }

    void shellKilledBySignal()
    {
        const sbw::RunResult result = run(sbw::Language::Shell, "kill -9 $$\n");
        QCOMPARE(result.signal, std::optional<int>(9));
        QCOMPARE(result.exitStatus, std::nullopt);
        QCOMPARE(result.cliExitCode(), 137);
    }

    void timeoutKillsTheScript()
    {
        const sbw::RunResult result = run(sbw::Language::Shell, "sleep 100\n", 2s);
        QVERIFY(result.timedOut);
        QCOMPARE(result.cliExitCode(), 124);
        QVERIFY2(result.wallMs < 10000, qPrintable(QString::number(result.wallMs)));
    }

    void missingImageIsAClearError()
    {
        const sbw::RunResult result = run(sbw::Language::Python, "print(1)\n", 60s, nullptr,
                                          QStringLiteral("no-such-recipe"));
        QVERIFY(result.error.contains(QLatin1String("guest image 'no-such-recipe' is not built")));
        QCOMPARE(result.cliExitCode(), sbw::RunResult::kWorkbenchError);
    }

    void cancelWhileBootingLeavesNothing()
    {
        std::atomic_bool cancel{false};
        std::thread canceller([&] {
            std::this_thread::sleep_for(300ms);
            cancel = true;
        });
        const sbw::RunResult result = run(sbw::Language::Python, "import time\ntime.sleep(100)\n", 60s, &cancel);
        canceller.join();
        QVERIFY2(result.cancelled, qPrintable(result.summary()));
        QVERIFY(result.error.isEmpty());
        QCOMPARE(result.cliExitCode(), 130);
    }

    // One guest: a 3 MiB random file and a CSV go in byte for byte, the script reads them, and
    // what it writes under out/ (all 256 byte values, a CSV in a subfolder) comes back exact.
    void inputFilesAndArtifactsAreExact()
    {
        QTemporaryDir dir;
        QByteArray random(3 * 1024 * 1024, Qt::Uninitialized);
        QRandomGenerator(7).fillRange(reinterpret_cast<quint32*>(random.data()), random.size() / 4);
        const QByteArray csv = "name,value\nalpha,1\nbeta,2\n\"gamma, delta\",39\n";
        QDir().mkpath(dir.filePath(QStringLiteral("in")));
        const QString randomPath = writeFile(dir.filePath(QStringLiteral("in/random.bin")), random);
        const QString csvPath = writeFile(dir.filePath(QStringLiteral("data.csv")), csv);
        auto log = sbw::CommandLog::open(dir.filePath(QStringLiteral("log.sqlite")));
        QVERIFY(log.ok());

        sbw::RunOptions options = newOptions();
        options.code = "import csv, hashlib, os\n"
                       "for name in ('random.bin', 'data.csv'):\n"
                       "    print(name, hashlib.sha256(open(name, 'rb').read()).hexdigest())\n"
                       "rows = list(csv.DictReader(open('data.csv', newline='')))\n"
                       "print('sum', sum(int(r['value']) for r in rows), rows[2]['name'])\n"
                       "print(sorted(os.listdir('.')))\n"
                       "open('out/bytes.bin', 'wb').write(bytes(range(256)))\n"
                       "os.makedirs('out/tables')\n"
                       "open('out/tables/summary.csv', 'w').write('n,total\\n3,42\\n')\n";
        options.inputFiles = {randomPath, csvPath};
        options.artifactsRoot = dir.filePath(QStringLiteral("runs"));
        options.log = log.value();
        const sbw::RunResult result = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.stderrData, QByteArray());
        QCOMPARE(result.stdoutData, "random.bin " + sha256Hex(random) + "\ndata.csv " + sha256Hex(csv)
                                        + "\nsum 42 gamma, delta\n"
                                          "['data.csv', 'main.py', 'out', 'random.bin']\n");
        QCOMPARE(result.exitStatus, std::optional<int>(0));

        const QString folder = options.artifactsRoot + QLatin1Char('/') + result.domainName + QStringLiteral("/out");
        QCOMPARE(result.artifactsFolder, folder);
        QCOMPARE(result.artifactsNote, QString());
        QCOMPARE(result.artifacts.size(), 2);
        QByteArray allBytes(256, Qt::Uninitialized);
        for (int i = 0; i < 256; ++i)
            allBytes[i] = char(i);
        QCOMPARE(result.artifacts[0].name, QStringLiteral("bytes.bin"));
        QCOMPARE(result.artifacts[0].size, 256);
        QCOMPARE(result.artifacts[0].hostPath, folder + QStringLiteral("/bytes.bin"));
        QCOMPARE(readFile(result.artifacts[0].hostPath), allBytes);
        QCOMPARE(result.artifacts[1].name, QStringLiteral("tables/summary.csv"));
        QCOMPARE(readFile(result.artifacts[1].hostPath), QByteArray("n,total\n3,42\n"));
        QCOMPARE(sbw::artifactsIn(folder).size(), 2);

        // The run's command-log row links to the folder.
        sbw::LogFilter filter;
        filter.sandbox = result.domainName;
        const auto rows = log.value()->rows(filter, 1);
        QVERIFY(rows.ok() && rows.value().size() == 1);
        QCOMPARE(rows.value().first().artifactsDir, folder);
    }

    void artifactCapsApplyAndAreNamed()
    {
        QTemporaryDir dir;
        sbw::RunOptions options = newOptions();
        options.language = sbw::Language::Shell;
        options.code = "cd out && head -c 204800 /dev/zero > big.bin && "
                       "for i in 1 2 3 4 5; do echo $i > f$i; done\n";
        options.artifactCaps.maxCount = 3;
        options.artifactCaps.maxBytes = 100 * 1024;
        options.artifactsRoot = dir.path();
        const sbw::RunResult result = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.exitStatus, std::optional<int>(0));
        QCOMPARE(result.artifactsNote,
                 QStringLiteral("out/ held 6 files (204810 bytes); 3 came back: 2 past the cap of 3 "
                                "files were skipped (f4, f5); 1 past the cap of 102400 bytes "
                                "(100.0 KiB) was skipped (big.bin)"));
        QStringList names;
        for (const sbw::RunArtifact& artifact : result.artifacts)
            names << artifact.name;
        QCOMPARE(names, (QStringList{QStringLiteral("f1"), QStringLiteral("f2"), QStringLiteral("f3")}));
        QCOMPARE(readFile(result.artifacts[2].hostPath), QByteArray("3\n"));
        QVERIFY(!QFile::exists(result.artifactsFolder + QStringLiteral("/big.bin")));
    }

    void badInputFilesAreClearErrors_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("error");
        static QTemporaryDir dir;
        QDir().mkpath(dir.filePath(QStringLiteral("a")));
        QDir().mkpath(dir.filePath(QStringLiteral("b")));
        const QString a = writeFile(dir.filePath(QStringLiteral("a/data.csv")), "x");
        const QString b = writeFile(dir.filePath(QStringLiteral("b/data.csv")), "y");
        const QString script = writeFile(dir.filePath(QStringLiteral("main.py")), "z");
        const QString missing = dir.filePath(QStringLiteral("missing.csv"));
        QTest::newRow("missing") << QStringList{missing}
                                 << QStringLiteral("input file %1 does not exist").arg(missing);
        QTest::newRow("folder") << QStringList{dir.filePath(QStringLiteral("a"))}
                                << QStringLiteral("input file %1 is a folder, not a file").arg(dir.filePath(QStringLiteral("a")));
        QTest::newRow("same name") << QStringList{a, b}
                                   << QStringLiteral("input files %1 and %2 have the same name data.csv; "
                                                     "rename one of them").arg(a, b);
        QTest::newRow("script") << QStringList{script}
                                << QStringLiteral("input file %1 would replace the script main.py; rename it").arg(script);
    }

    void badInputFilesAreClearErrors()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, error);
        sbw::RunOptions options = newOptions();
        options.code = "print(1)\n";
        options.inputFiles = files;
        const sbw::RunResult result = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QCOMPARE(result.error, error);
        QCOMPARE(result.domainName, QString());
        QCOMPARE(result.cliExitCode(), sbw::RunResult::kWorkbenchError);
    }

    // A pool: the first run boots its own microVM, then the pool boots the next one and
    // pauses it; the second run takes it (resumed, output exact, the VM gone afterwards). A
    // run of other limits does not take it. A pool of two fills up to two at once; turning
    // the pool off and destroying it leave nothing (checked by cleanup()).
    void preBootedSandboxServesTheNextRun()
    {
        sbw::SandboxPool pool(*m_connection);
        sbw::RunOptions options = newOptions();
        options.code = "print(6*7)\n";
        options.pool = &pool;
        const sbw::RunResult first = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
        QVERIFY(!first.preBooted);
        QTRY_VERIFY_WITH_TIMEOUT(pool.hasReady(), 180000);
        const QStringList pooled = sbw::test::runDomains(m_connection->uri());
        QCOMPARE(pooled.size(), 1);
        QVERIFY(!pooled.contains(first.domainName));
        QCOMPARE(domainState(pooled.first()), int(VIR_DOMAIN_PAUSED));

        sbw::SandboxOptions other = options.sandbox;
        other.memoryMiB = 384;
        QVERIFY(pool.take(other) == nullptr);
        QVERIFY(pool.hasReady());

        options.code = "import os\nprint(6*7, sorted(os.listdir('.')))\n";
        const sbw::RunResult second = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(second.error.isEmpty(), qPrintable(second.error));
        QVERIFY(second.preBooted);
        QCOMPARE(second.domainName, pooled.first());
        QCOMPARE(second.stdoutData, QByteArray("42 ['main.py', 'out']\n"));
        QCOMPARE(second.exitStatus, std::optional<int>(0));
        QVERIFY(!sbw::test::runDomains(m_connection->uri()).contains(second.domainName));

        QTRY_VERIFY_WITH_TIMEOUT(pool.hasReady(), 180000); // the third microVM
        pool.setSize(2);
        QTRY_COMPARE_WITH_TIMEOUT(pool.readyCount(), 2, 180000);
        const QStringList two = sbw::test::runDomains(m_connection->uri());
        QCOMPARE(two.size(), 2);
        for (const QString& name : two)
            QCOMPARE(domainState(name), int(VIR_DOMAIN_PAUSED));
        QVERIFY(pool.take(options.sandbox) != nullptr); // destroyed here
        QCOMPARE(pool.readyCount(), 1);
        pool.setSize(0);
        QVERIFY(!pool.hasReady());
        QCOMPARE(sbw::test::runDomains(m_connection->uri()), QStringList());
    }

    void deadDaemonIsAClearError()
    {
        sbw::HypervisorConnection nowhere(QStringLiteral("qemu+unix:///system?socket=/nonexistent/libvirt-sock"));
        sbw::RunOptions options = newOptions();
        options.code = "print(1)\n";
        const sbw::RunResult result = sbw::runEphemeral(nowhere, options, {}, nullptr);
        QVERIFY2(result.error.startsWith(QLatin1String("cannot connect to libvirt at")), qPrintable(result.error));
    }
};

QTEST_GUILESS_MAIN(TestEphemeralRun)
#include "tst_ephemeralrun.moc"
