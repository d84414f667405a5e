// The sbw command as a user runs it: exact stdout/stderr bytes and exit codes.

#include "LoopbackHttpServer.h"
#include "TestEnvironment.h"
#include "log/CommandLog.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>
#include <QThread>

#include <csignal>

namespace {

struct CliResult
{
    QByteArray out;
    QByteArray err;
    int exitCode = -1;
};

CliResult sbwCli(const QStringList& arguments, int timeoutMs = 300000)
{
    QProcess process;
    process.start(QStringLiteral(SBW_CLI_PATH), arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs))
        return {};
    return {process.readAllStandardOutput(), process.readAllStandardError(), process.exitCode()};
}

CliResult sbwRun(const QStringList& arguments, int timeoutMs = 300000)
{
    return sbwCli(QStringList{QStringLiteral("run")} + arguments, timeoutMs);
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cleanup()
    {
        QCOMPARE(sbw::test::runDomains(sbw::test::guestUri()), QStringList());
        QCOMPARE(sbw::test::runOverlays(sbw::test::guestUri()), QStringList());
    }

    void codeFromTheCommandLine()
    {
        const CliResult r = sbwRun({QStringLiteral("-c"), QStringLiteral("import sys\nprint(6*7)\nprint('e', file=sys.stderr)")});
        QCOMPARE(r.out, QByteArray("42\n"));
        QCOMPARE(r.err, QByteArray("e\n"));
        QCOMPARE(r.exitCode, 0);

        // The run is one row of the command log, with the script and its output.
        auto log = sbw::CommandLog::open(sbw::CommandLog::defaultPath());
        QVERIFY(log.ok());
        sbw::LogFilter filter;
        filter.text = QStringLiteral("print(6*7)");
        const auto rows = log.value()->rows(filter, 1);
        QVERIFY(rows.ok() && rows.value().size() == 1);
        const sbw::ActionRecord row = rows.value().first();
        QCOMPARE(row.kind, sbw::ActionKind::Run);
        QCOMPARE(row.actor.kind, sbw::Actor::Kind::Cli);
        QVERIFY2(row.sandbox.startsWith(QStringLiteral("sbw-run-")), qPrintable(row.sandbox));
        QCOMPARE(row.command, QStringLiteral("import sys\nprint(6*7)\nprint('e', file=sys.stderr)"));
        QCOMPARE(row.outcome, sbw::Outcome::Succeeded);
        QCOMPARE(row.exitStatus, std::optional<int>(0));
        QCOMPARE(log.value()->output(row.id, sbw::OutputStream::Stdout).value(), QByteArray("42\n"));
        QCOMPARE(log.value()->output(row.id, sbw::OutputStream::Stderr).value(), QByteArray("e\n"));
    }

    void allowlistRunReachesOnlyWhatItAllows()
    {
        // The run's guest has no interface; its proxy (this `sbw run`'s) lets through the host
        // and port --allow names, and asks for the rest: with no terminal to ask on, denied.
        QTemporaryDir site;
        QFile page(site.filePath(QStringLiteral("page.txt")));
        QVERIFY(page.open(QIODevice::WriteOnly) && page.write("allowed page\n") > 0);
        page.close();
        sbw::test::LoopbackHttpServers servers;
        const quint16 allowed = servers.start(site.path());
        const quint16 unlisted = servers.start(site.path());
        QVERIFY(allowed && unlisted);
        const QString script = QStringLiteral(
            "ls /sys/class/net\n"
            "for port in %1 %2; do env -u NO_PROXY -u no_proxy python3 -c '\n"
            "import sys, urllib.request, urllib.error\n"
            "try:\n"
            "    r = urllib.request.urlopen(\"http://127.0.0.1:%s/page.txt\" % sys.argv[1], timeout=60)\n"
            "    print(r.status, r.read().decode().strip())\n"
            "except urllib.error.HTTPError as e:\n"
            "    print(e.code, e.read().decode().strip())\n"
            "' $port; done\n")
                                   .arg(allowed)
                                   .arg(unlisted);
        const CliResult r = sbwRun({QStringLiteral("--network"), QStringLiteral("allowlist"), QStringLiteral("--allow"),
                                    QStringLiteral("127.0.0.1:%1").arg(allowed), QStringLiteral("--lang"),
                                    QStringLiteral("sh"), QStringLiteral("-c"), script});
        QCOMPARE(r.out, QByteArray("lo\n200 allowed page\n403 needs approval; no approver attached\n"));
        QCOMPARE(r.exitCode, 0);

        // Both attempts are rows of the run's microVM, with their decisions.
        auto log = sbw::CommandLog::open(sbw::CommandLog::defaultPath());
        QVERIFY(log.ok());
        const auto rows = log.value()->rows(sbw::LogFilter{{}, {}, {}, QStringLiteral("127.0.0.1:"), sbw::ActionKind::Network}, 2);
        QVERIFY(rows.ok() && rows->size() == 2);
        QCOMPARE(rows->at(0).command, QStringLiteral("GET http://127.0.0.1:%1/page.txt").arg(unlisted));
        QCOMPARE(rows->at(0).outcome, sbw::Outcome::Denied);
        QCOMPARE(rows->at(1).command, QStringLiteral("GET http://127.0.0.1:%1/page.txt").arg(allowed));
        QCOMPARE(rows->at(1).outcome, sbw::Outcome::Succeeded);
        QVERIFY2(rows->at(1).sandbox.startsWith(QStringLiteral("sbw-run-")), qPrintable(rows->at(1).sandbox));
        QCOMPARE(rows->at(0).sandbox, rows->at(1).sandbox);
    }

    void scriptFileAndShellExitStatus()
    {
        QTemporaryFile script;
        QVERIFY(script.open());
        script.write("echo from-file\nnproc\nexit 3\n");
        script.close();
        const CliResult r = sbwRun({QStringLiteral("--lang"), QStringLiteral("sh"), script.fileName()});
        // The guest has the default vCPUs: 2, or 1 on a single-core host.
        const QByteArray vcpus = QThread::idealThreadCount() >= 2 ? "2" : "1";
        QCOMPARE(r.out, "from-file\n" + vcpus + "\n");
        QCOMPARE(r.exitCode, 3);
    }

    void signalExitsWith128PlusNAndIsNamed()
    {
        const CliResult r = sbwRun({QStringLiteral("--lang"), QStringLiteral("sh"), QStringLiteral("-c"),
                                    QStringLiteral("echo before; kill -9 $$")});
        QCOMPARE(r.out, QByteArray("before\n"));
        QCOMPARE(r.err, QByteArray("sbw: killed by signal 9 (SIGKILL)\n"));
        QCOMPARE(r.exitCode, 137);
    }

    void timeoutExitsWith124()
    {
        const CliResult r = sbwRun({QStringLiteral("--lang"), QStringLiteral("sh"), QStringLiteral("--timeout"),
                                    QStringLiteral("2"), QStringLiteral("-c"), QStringLiteral("sleep 100")});
        QCOMPARE(r.exitCode, 124);
        QVERIFY2(r.err.contains("timed out"), r.err.constData());
    }

    void workbenchErrorIsOneLineAnd125()
    {
        const CliResult r = sbwRun({QStringLiteral("--image"), QStringLiteral("no-such-recipe"),
                                    QStringLiteral("-c"), QStringLiteral("print(1)")});
        QCOMPARE(r.exitCode, 125);
        QCOMPARE(r.out, QByteArray());
        QVERIFY2(r.err.startsWith("sbw: error: guest image 'no-such-recipe' is not built"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }

    void usageErrors()
    {
        QCOMPARE(sbwRun({}).exitCode, 2);
        const CliResult unknown = sbwCli({QStringLiteral("bogus")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.startsWith("sbw: unknown command 'bogus'\nusage: sbw COMMAND [options]\n"),
                 unknown.err.constData());
        QCOMPARE(sbwRun({QStringLiteral("--lang"), QStringLiteral("cobol"), QStringLiteral("-c"), QStringLiteral("x")}).exitCode, 2);
    }

    void limitFlagsInHelp()
    {
        const CliResult help = sbwRun({QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.startsWith("Usage: sbw run [options] FILE | -c CODE\n"), help.out.constData());
        for (const char* text :
             {"--cpu-share <PERCENT>", "(default 0 = no limit; up to 100 per vCPU)", "--disk <GIB>",
              "(default: the image's size, 4 for minimal)", "--lifetime <S>", "(default 0 = none)",
              "--output-cap <BYTES>", "(default 64M, 0 = none)", "--timeout <S>", "--memory <MIB>",
              "--vcpus <N>", "(default 2; 1 on a single-core host)"})
            QVERIFY2(help.out.simplified().contains(text), text);
        const CliResult ws = sbwCli({QStringLiteral("ws"), QStringLiteral("--help")});
        QVERIFY2(ws.out.contains("[--cpu-share PERCENT]"), ws.out.constData());
    }

    void badLimitValuesAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("error");
        const QString run = QStringLiteral("run");
        const QStringList code{QStringLiteral("-c"), QStringLiteral("print(1)")};
        QTest::newRow("cpu-share word")
            << QStringList{run, QStringLiteral("--cpu-share"), QStringLiteral("half")} + code
            << QByteArray("sbw: --cpu-share needs a percentage of one host core, e.g. 50\n");
        QTest::newRow("cpu-share above the vCPUs")
            << QStringList{run, QStringLiteral("--cpu-share"), QStringLiteral("250"),
                           QStringLiteral("--vcpus"), QStringLiteral("2")} + code
            << QByteArray("sbw: --cpu-share: a CPU share is a percentage of one host core from 1 "
                          "to 200 (100 per vCPU), or 0 for no limit; 250 is not\n");
        QTest::newRow("memory word")
            << QStringList{run, QStringLiteral("--memory"), QStringLiteral("abc")} + code
            << QByteArray("sbw: --memory needs a whole number of MiB, at least 128, e.g. 512\n");
        QTest::newRow("lifetime negative")
            << QStringList{run, QStringLiteral("--lifetime"), QStringLiteral("-1")} + code
            << QByteArray("sbw: --lifetime needs a number of seconds\n");
        QTest::newRow("output-cap unit")
            << QStringList{run, QStringLiteral("--output-cap"), QStringLiteral("10X")} + code
            << QByteArray("sbw: --output-cap needs a size in bytes, e.g. 65536, 64K or 16M\n");
        QTest::newRow("disk zero")
            << QStringList{run, QStringLiteral("--disk"), QStringLiteral("0")} + code
            << QByteArray("sbw: --disk needs a whole number of GiB, e.g. 8\n");
        QTest::newRow("disk below the image")
            << QStringList{run, QStringLiteral("--disk"), QStringLiteral("2")} + code
            << QByteArray("sbw: --disk: the disk limit of 2 GiB is below the size of image "
                          "'minimal' (4 GiB): use 4 GiB or more\n");
        QTest::newRow("ws disk below the image")
            << QStringList{QStringLiteral("ws"), QStringLiteral("create"), QStringLiteral("small"),
                           QStringLiteral("--disk"), QStringLiteral("1")}
            << QByteArray("sbw: --disk: the disk limit of 1 GiB is below the size of image "
                          "'minimal' (4 GiB): use 4 GiB or more\n");
        QTest::newRow("ws cpu-share")
            << QStringList{QStringLiteral("ws"), QStringLiteral("create"), QStringLiteral("busy"),
                           QStringLiteral("--cpu-share"), QStringLiteral("101")}
            << QByteArray("sbw: --cpu-share: a CPU share is a percentage of one host core from 1 "
                          "to 100 (100 per vCPU), or 0 for no limit; 101 is not\n");
    }

    void badLimitValuesAreUsageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, error);
        const CliResult r = sbwCli(arguments);
        QCOMPARE(r.err, error);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(r.exitCode, 2);
    }

    void diskAndOutputCapFlags()
    {
        // One guest: its root file system fills the 5 GiB disk, and endless output ends at a
        // cap of 64 KiB with the cap named on stderr.
        const CliResult r = sbwRun({QStringLiteral("--lang"), QStringLiteral("sh"), QStringLiteral("--disk"),
                                    QStringLiteral("5"), QStringLiteral("--output-cap"), QStringLiteral("64K"),
                                    QStringLiteral("-c"),
                                    QStringLiteral("df -B1 --output=size / | tail -n 1; "
                                                   "tr '\\0' x < /dev/zero")});
        QCOMPARE(r.exitCode, 137);
        QCOMPARE(r.err, QByteArray("sbw: stdout passed the output cap of 65536 bytes; the rest "
                                   "was dropped and the script killed\n"));
        QCOMPARE(r.out.size(), 65536);
        const qsizetype newline = r.out.indexOf('\n');
        const qint64 rootBytes = r.out.left(newline).toLongLong();
        // ext4 keeps some of the disk for its own metadata (inode tables, journal).
        QVERIFY2(rootBytes > (qint64(47) << 30) / 10 && rootBytes <= (qint64(5) << 30),
                 r.out.left(newline).constData());
        QCOMPARE(r.out.mid(newline + 1), QByteArray(65536 - newline - 1, 'x'));
    }

    // --file in, --out back: the guest sums the CSV, copies the binary (all 256 byte values)
    // to out/, and both arrive in DIR with one stderr line each.
    void fileAndOutRoundTrip()
    {
        QTemporaryDir dir;
        QByteArray allBytes(256, Qt::Uninitialized);
        for (int i = 0; i < 256; ++i)
            allBytes[i] = char(i);
        const QString csv = dir.filePath(QStringLiteral("numbers.csv"));
        const QString blob = dir.filePath(QStringLiteral("blob.bin"));
        for (const auto& [path, bytes] : {std::pair{csv, QByteArray("x\n1\n2\n39\n")}, std::pair{blob, allBytes}}) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        }
        const QString out = dir.filePath(QStringLiteral("got"));
        const CliResult r = sbwRun({QStringLiteral("--file"), csv, QStringLiteral("--file"), blob,
                                    QStringLiteral("--out"), out, QStringLiteral("-c"),
                                    QStringLiteral("import shutil\n"
                                                   "total = sum(int(n) for n in open('numbers.csv').read().split()[1:])\n"
                                                   "open('out/total.txt', 'w').write(str(total))\n"
                                                   "shutil.copy('blob.bin', 'out/blob.bin')\n"
                                                   "print('copied')")});
        QCOMPARE(r.out, QByteArray("copied\n"));
        QCOMPARE(r.err, ("sbw: artifact blob.bin, 256 bytes: " + out + "/blob.bin\n"
                         "sbw: artifact total.txt, 2 bytes: " + out + "/total.txt\n").toUtf8());
        QCOMPARE(r.exitCode, 0);
        QFile back(out + QStringLiteral("/blob.bin"));
        QVERIFY(back.open(QIODevice::ReadOnly));
        QCOMPARE(back.readAll(), allBytes);
        QFile total(out + QStringLiteral("/total.txt"));
        QVERIFY(total.open(QIODevice::ReadOnly));
        QCOMPARE(total.readAll(), QByteArray("42"));

        // A missing input file is a usage error, before any guest starts.
        const QString missing = dir.filePath(QStringLiteral("missing.csv"));
        const CliResult bad = sbwRun({QStringLiteral("--file"), missing, QStringLiteral("-c"), QStringLiteral("print(1)")});
        QCOMPARE(bad.exitCode, 2);
        QCOMPARE(bad.err, ("sbw: input file " + missing + " does not exist\n").toUtf8());
    }

    void interruptCancelsAndCleansUp()
    {
        QProcess process;
        process.start(QStringLiteral(SBW_CLI_PATH),
                      {QStringLiteral("run"), QStringLiteral("--lang"), QStringLiteral("sh"), QStringLiteral("-c"),
                       QStringLiteral("echo started; sleep 100")});
        QVERIFY(process.waitForStarted());
        QByteArray seen;
        QTRY_VERIFY_WITH_TIMEOUT((seen += process.readAllStandardOutput()).contains("started"), 240000);
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 130);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
