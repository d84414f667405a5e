// The words the status line uses for phases and outcomes.

#include "widgets/RunStatusText.h"

#include <QtTest>

using namespace sbw;

class TestRunStatusText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void phases();
    void durations();
    void results_data();
    void results();
    void errorsShowHiddenCharacters();
};

void TestRunStatusText::phases()
{
    QCOMPARE(phaseText(RunPhase::Connecting), QStringLiteral("Connecting…"));
    QCOMPARE(phaseText(RunPhase::Queued), QStringLiteral("Waiting for a free microVM…"));
    QCOMPARE(phaseText(RunPhase::Preparing), QStringLiteral("Preparing image…"));
    QCOMPARE(phaseText(RunPhase::SavingState), QStringLiteral("Saving a ready microVM for this image (once)…"));
    QCOMPARE(phaseText(RunPhase::Restoring), QStringLiteral("Restoring the saved microVM…"));
    QCOMPARE(queuedText(0, 1), QStringLiteral("Waiting for a free microVM: next; waiting for the running microVM to end…"));
    QCOMPARE(queuedText(0, 2), QStringLiteral("Waiting for a free microVM: next; waiting for one of the 2 running microVMs to end…"));
    QCOMPARE(queuedText(1, 2), QStringLiteral("Waiting for a free microVM: 1 run ahead; at most 2 at once…"));
    QCOMPARE(queuedText(3, 8), QStringLiteral("Waiting for a free microVM: 3 runs ahead; at most 8 at once…"));
    QCOMPARE(phaseText(RunPhase::Booting), QStringLiteral("Booting microVM…"));
    QCOMPARE(phaseText(RunPhase::Running), QStringLiteral("Running…"));
    QCOMPARE(phaseText(RunPhase::CleaningUp), QStringLiteral("Cleaning up…"));
    QCOMPARE(phaseText(RunPhase::Finished), QString());
}

void TestRunStatusText::durations()
{
    QCOMPARE(durationText(0), QStringLiteral("0 ms"));
    QCOMPARE(durationText(999), QStringLiteral("999 ms"));
    QCOMPARE(durationText(6420), QStringLiteral("6.42 s"));
    QCOMPARE(durationText(73120), QStringLiteral("73.1 s"));
}

void TestRunStatusText::results_data()
{
    QTest::addColumn<RunResult>("result");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");

    RunResult ok;
    ok.exitStatus = 0;
    ok.bootMs = 6420;
    ok.wallMs = 85;
    QTest::newRow("exit 0") << ok
                            << QStringLiteral(
                                   "Finished: exit status 0 · boot 6.42 s · script 85 ms")
                            << int(ResultKind::Success);

    RunResult preBooted = ok;
    preBooted.preBooted = true;
    preBooted.bootMs = 74;
    QTest::newRow("pre-booted") << preBooted
                                << QStringLiteral("Finished: exit status 0 · pre-booted microVM "
                                                  "resumed in 74 ms · script 85 ms")
                                << int(ResultKind::Success);

    RunResult restored = ok;
    restored.restored = true;
    restored.bootMs = 1840;
    QTest::newRow("restored") << restored
                              << QStringLiteral("Finished: exit status 0 · restored from the saved microVM "
                                                "in 1.84 s · script 85 ms")
                              << int(ResultKind::Success);

    RunResult queued = restored;
    queued.queuedMs = 3200;
    QTest::newRow("queued") << queued
                            << QStringLiteral("Finished: exit status 0 · waited 3.20 s for a free microVM · restored "
                                              "from the saved microVM in 1.84 s · script 85 ms")
                            << int(ResultKind::Success);

    RunResult failed = ok;
    failed.exitStatus = 3;
    QTest::newRow("exit 3") << failed
                            << QStringLiteral(
                                   "Finished: exit status 3 · boot 6.42 s · script 85 ms")
                            << int(ResultKind::Warning);

    RunResult killed = ok;
    killed.exitStatus.reset();
    killed.signal = 9;
    QTest::newRow("signal") << killed
                            << QStringLiteral(
                                   "Killed by signal 9 (SIGKILL) · boot 6.42 s · script 85 ms")
                            << int(ResultKind::Warning);

    RunResult timedOut = killed;
    timedOut.timedOut = true;
    timedOut.wallMs = 2003;
    QTest::newRow("timeout") << timedOut
                             << QStringLiteral(
                                    "Timed out after 2.00 s: script killed · boot 6.42 s")
                             << int(ResultKind::Warning);

    // A limit says which one: the note first, then the guest's own outcome where the host did
    // not end the script.
    RunResult memory = killed;
    memory.wallMs = 3100;
    memory.limit = RunLimit::Memory;
    memory.limitNote = QStringLiteral("the memory limit of 256 MiB was hit: the guest's kernel "
                                      "killed python3 (pid 231) for lack of memory");
    QTest::newRow("memory limit")
        << memory
        << QStringLiteral("The memory limit of 256 MiB was hit: the guest's kernel killed python3 "
                          "(pid 231) for lack of memory · killed by signal 9 (SIGKILL) · boot "
                          "6.42 s · script 3.10 s")
        << int(ResultKind::Warning);

    RunResult disk = failed;
    disk.exitStatus = 1;
    disk.limit = RunLimit::Disk;
    disk.limitNote =
        QStringLiteral("the disk limit of 4 GiB was hit: the guest's root file system is full");
    QTest::newRow("disk limit")
        << disk
        << QStringLiteral("The disk limit of 4 GiB was hit: the guest's root file system is full "
                          "· exit status 1 · boot 6.42 s · script 85 ms")
        << int(ResultKind::Warning);

    RunResult capped = killed;
    capped.limit = RunLimit::OutputCap;
    capped.limitNote = QStringLiteral("stdout passed the output cap of 1024 bytes; the rest was "
                                      "dropped and the script killed");
    QTest::newRow("output cap")
        << capped
        << QStringLiteral("Stdout passed the output cap of 1024 bytes; the rest was dropped and "
                          "the script killed · boot 6.42 s · script 85 ms")
        << int(ResultKind::Warning);

    RunResult cappedEnded = ok; // the script ended before the kill: still not a success
    cappedEnded.limit = RunLimit::OutputCap;
    cappedEnded.limitNote =
        QStringLiteral("stdout passed the output cap of 1024 bytes; the rest was dropped");
    QTest::newRow("output cap, ended")
        << cappedEnded
        << QStringLiteral("Stdout passed the output cap of 1024 bytes; the rest was dropped · "
                          "boot 6.42 s · script 85 ms")
        << int(ResultKind::Warning);

    RunResult lifetime = timedOut;
    lifetime.limit = RunLimit::Lifetime;
    lifetime.limitNote =
        QStringLiteral("the session lifetime of 20 s ran out; the script was killed");
    QTest::newRow("lifetime")
        << lifetime
        << QStringLiteral("The session lifetime of 20 s ran out; the script was killed · boot "
                          "6.42 s · script 2.00 s")
        << int(ResultKind::Warning);

    RunResult cancelled;
    cancelled.cancelled = true;
    QTest::newRow("cancelled") << cancelled << QStringLiteral("Cancelled")
                               << int(ResultKind::Warning);

    RunResult error;
    error.error = QStringLiteral("guest image 'minimal' is not built yet\n");
    QTest::newRow("error") << error
                           << QStringLiteral("Failed: guest image 'minimal' is not built yet")
                           << int(ResultKind::Failure);
}

void TestRunStatusText::results()
{
    QFETCH(RunResult, result);
    QFETCH(QString, text);
    QFETCH(int, kind);
    QCOMPARE(resultText(result), text);
    QCOMPARE(int(resultKind(result)), kind);
}

void TestRunStatusText::errorsShowHiddenCharacters()
{
    RunResult error;
    error.error = QStringLiteral("bad \x1b[31m name \u202e");
    QCOMPARE(resultText(error), QStringLiteral("Failed: bad \\x1b[31m name <U+202E>"));
}

QTEST_MAIN(TestRunStatusText)
#include "tst_runstatustext.moc"
