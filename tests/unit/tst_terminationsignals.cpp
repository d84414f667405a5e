#include "base/TerminationSignals.h"

#include <QSignalSpy>
#include <QTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

class TestTerminationSignals : public QObject
{
    Q_OBJECT

    static bool hasDefaultAction(int number)
    {
        struct sigaction current = {};
        ::sigaction(number, nullptr, &current);
        return current.sa_handler == SIG_DFL;
    }

private Q_SLOTS:
    void signalsArriveOnTheEventLoopWithTheirCount()
    {
        sbw::TerminationSignals termination(3);
        QSignalSpy received(&termination, &sbw::TerminationSignals::received);
        QVERIFY(!hasDefaultAction(SIGTERM));
        QVERIFY(!hasDefaultAction(SIGINT));
        QVERIFY(!hasDefaultAction(SIGHUP));
        QVERIFY(!sbw::TerminationSignals::requested());
        ::raise(SIGTERM);
        QVERIFY(sbw::TerminationSignals::requested()); // set by the handler itself
        QVERIFY(received.wait(5000));
        QCOMPARE(received.size(), 1);
        QCOMPARE(received.first().at(0).toInt(), SIGTERM);
        QCOMPARE(received.first().at(1).toInt(), 1);
        ::raise(SIGHUP);
        QVERIFY(received.wait(5000));
        QCOMPARE(received.last().at(0).toInt(), SIGHUP);
        QCOMPARE(received.last().at(1).toInt(), 2);
    }

    void theLastSignalEndsTheProcessAtOnce()
    {
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) { // no event loop runs: only the handler acts
            sbw::TerminationSignals termination(2);
            ::raise(SIGINT);
            ::raise(SIGINT);
            ::_exit(0); // not reached when the second signal ended the process
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGINT);
    }

    void destroyingRestoresTheDefaults()
    {
        {
            sbw::TerminationSignals termination(3);
            QVERIFY(!hasDefaultAction(SIGINT));
        }
        QVERIFY(hasDefaultAction(SIGINT));
        QVERIFY(hasDefaultAction(SIGTERM));
        QVERIFY(hasDefaultAction(SIGHUP));
    }
};

QTEST_GUILESS_MAIN(TestTerminationSignals)
#include "tst_terminationsignals.moc"
