#include "guest/GuestSession.h"
#include "run/EphemeralRun.h"

#include <QTest>

using sbw::RunResult;

class TestRunResult : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exitCodes()
    {
        RunResult ok;
        ok.exitStatus = 0;
        QCOMPARE(ok.cliExitCode(), 0);
        QCOMPARE(ok.summary(), QStringLiteral("exit status 0"));

        RunResult three;
        three.exitStatus = 3;
        QCOMPARE(three.cliExitCode(), 3);

        RunResult killed;
        killed.signal = 9;
        QCOMPARE(killed.cliExitCode(), 137);
        QCOMPARE(killed.summary(), QStringLiteral("killed by signal 9 (SIGKILL)"));

        RunResult timedOut;
        timedOut.signal = 9;
        timedOut.timedOut = true;
        timedOut.wallMs = 2003;
        QCOMPARE(timedOut.cliExitCode(), 124);
        QCOMPARE(timedOut.summary(), QStringLiteral("timed out after 2003 ms and killed"));

        RunResult cancelled;
        cancelled.cancelled = true;
        QCOMPARE(cancelled.cliExitCode(), 130);

        RunResult failed;
        failed.exitStatus = 0; // an error wins over anything the guest said
        failed.error = QStringLiteral("cannot connect to libvirt");
        QCOMPARE(failed.cliExitCode(), RunResult::kWorkbenchError);
        QCOMPARE(failed.summary(), failed.error);

        RunResult nothing;
        QCOMPARE(nothing.cliExitCode(), RunResult::kWorkbenchError);
    }

    void signalNames()
    {
        QCOMPARE(sbw::signalNumber("KILL"), 9);
        QCOMPARE(sbw::signalNumber("TERM"), 15);
        QCOMPARE(sbw::signalNumber("SEGV"), 11);
        QCOMPARE(sbw::signalNumber("HUP"), 1);
        QCOMPARE(sbw::signalNumber("NOPE"), 0);
    }

    void languages()
    {
        QCOMPARE(sbw::parseLanguage(QStringLiteral("python")), sbw::Language::Python);
        QCOMPARE(sbw::parseLanguage(QStringLiteral("sh")), sbw::Language::Shell);
        QVERIFY(!sbw::parseLanguage(QStringLiteral("ruby")));
        QCOMPARE(sbw::languageName(sbw::Language::Shell), QStringLiteral("sh"));
    }
};

QTEST_GUILESS_MAIN(TestRunResult)
#include "tst_runresult.moc"
