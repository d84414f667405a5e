#include "TerminationSignals.h"

#include <QSignalSpy>
#include <QTest>

#include <csignal>

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
    void signalArrivesOnTheEventLoopOnce()
    {
        sbw::TerminationSignals termination;
        QSignalSpy received(&termination, &sbw::TerminationSignals::received);
        QVERIFY(!hasDefaultAction(SIGTERM));
        QVERIFY(!hasDefaultAction(SIGHUP));
        ::raise(SIGTERM);
        QVERIFY(received.wait(5000));
        QCOMPARE(received.size(), 1);
        QCOMPARE(received.first().first().toInt(), SIGTERM);
        // SA_RESETHAND: a second SIGTERM would end the process; the other signals still arrive.
        QVERIFY(hasDefaultAction(SIGTERM));
        ::raise(SIGHUP);
        QVERIFY(received.wait(5000));
        QCOMPARE(received.last().first().toInt(), SIGHUP);
    }

    void destroyingRestoresTheDefaults()
    {
        {
            sbw::TerminationSignals termination;
            QVERIFY(!hasDefaultAction(SIGINT));
        }
        QVERIFY(hasDefaultAction(SIGINT));
        QVERIFY(hasDefaultAction(SIGTERM));
        QVERIFY(hasDefaultAction(SIGHUP));
    }
};

QTEST_GUILESS_MAIN(TestTerminationSignals)
#include "tst_terminationsignals.moc"
