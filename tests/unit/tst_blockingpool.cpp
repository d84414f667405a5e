#include "base/Async.h"

#include <QCoreApplication>
#include <QTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace std::chrono_literals;

// Work on the blocking pool ends before the application object does: after it, Qt's own
// statics go (a query still running met its database being closed under it).
class TestBlockingPool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theApplicationsEndWaitsForRunningWork()
    {
        // Twice: a second application object in the same process waits too.
        for (int round = 0; round < 2; ++round) {
            std::atomic_bool started{false};
            std::atomic_bool finished{false};
            {
                int argc = 1;
                char name[] = "tst_blockingpool";
                char* argv[] = {name, nullptr};
                QCoreApplication app(argc, argv);
                sbw::runAsync([&] {
                    started = true;
                    std::this_thread::sleep_for(300ms);
                    finished = true;
                });
                while (!started)
                    std::this_thread::yield();
            }
            QVERIFY2(finished, qPrintable(QStringLiteral("round %1").arg(round)));
        }
    }
};

QTEST_APPLESS_MAIN(TestBlockingPool)
#include "tst_blockingpool.moc"
