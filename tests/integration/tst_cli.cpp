// The sbw command as a user runs it: exact stdout/stderr bytes and exit codes.

#include "TestEnvironment.h"

#include <QProcess>
#include <QTemporaryFile>
#include <QTest>

#include <csignal>

namespace {

struct CliResult
{
    QByteArray out;
    QByteArray err;
    int exitCode = -1;
};

CliResult sbwRun(const QStringList& arguments, int timeoutMs = 300000)
{
    QProcess process;
    process.start(QStringLiteral(SBW_CLI_PATH), QStringList{QStringLiteral("run")} + arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs))
        return {};
    return {process.readAllStandardOutput(), process.readAllStandardError(), process.exitCode()};
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
    }

    void scriptFileAndShellExitStatus()
    {
        QTemporaryFile script;
        QVERIFY(script.open());
        script.write("echo from-file\nexit 3\n");
        script.close();
        const CliResult r = sbwRun({QStringLiteral("--lang"), QStringLiteral("sh"), script.fileName()});
        QCOMPARE(r.out, QByteArray("from-file\n"));
        QCOMPARE(r.exitCode, 3);
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
        QCOMPARE(sbwRun({QStringLiteral("--lang"), QStringLiteral("cobol"), QStringLiteral("-c"), QStringLiteral("x")}).exitCode, 2);
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
