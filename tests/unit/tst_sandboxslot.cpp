// The places for running sandboxes and their queue (capacity/SandboxSlot, HostCapacity): the
// host's default, the environment's override, first come first served across holders, a
// holder's process that dies frees its place.

#include "capacity/HostCapacity.h"
#include "capacity/SandboxSlot.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>
#include <future>
#include <sys/wait.h>
#include <unistd.h>

class TestSandboxSlot : public QObject
{
    Q_OBJECT

    QTemporaryDir m_state;

private Q_SLOTS:
    void initTestCase() { qputenv("XDG_STATE_HOME", m_state.path().toUtf8()); }

    void defaultIsFourPerCoreWithinMemory()
    {
        QCOMPARE(sbw::defaultMaxSandboxes(2, 24000, 512), 8);  // cores bound it
        QCOMPARE(sbw::defaultMaxSandboxes(16, 4000, 512), 6);  // memory: 4000 / (512 + 128)
        QCOMPARE(sbw::defaultMaxSandboxes(2, 300, 512), 1);    // never below one
        QCOMPARE(sbw::defaultMaxSandboxes(64, 1 << 20, 256), 64); // nor above 64
    }

    void environmentOverridesTheSetting()
    {
        qputenv("SBW_MAX_SANDBOXES", "3");
        QCOMPARE(sbw::maxSandboxes(5, 512), 3);
        qputenv("SBW_MAX_SANDBOXES", "zero");
        QCOMPARE(sbw::maxSandboxes(5, 512), 5);
        qunsetenv("SBW_MAX_SANDBOXES");
        QCOMPARE(sbw::maxSandboxes(0, 512), sbw::hostMaxSandboxes(512));
    }

    void thirdWaitsUntilAPlaceIsFree()
    {
        auto first = sbw::SandboxSlot::acquire(2, {}, nullptr);
        auto second = sbw::SandboxSlot::acquire(2, {}, nullptr);
        QVERIFY(first.ok() && second.ok());
        QCOMPARE(first->index(), 0);
        QCOMPARE(second->index(), 1);
        std::atomic<int> thirdAhead{-1};
        auto third = std::async(std::launch::async, [&] {
            return sbw::SandboxSlot::acquire(2, [&](int ahead) { thirdAhead = ahead; }, nullptr);
        });
        QTRY_COMPARE(thirdAhead.load(), 0); // first in the queue, no place free
        std::atomic<int> fourthAhead{-1};
        auto fourth = std::async(std::launch::async, [&] {
            return sbw::SandboxSlot::acquire(2, [&](int ahead) { fourthAhead = ahead; }, nullptr);
        });
        QTRY_COMPARE(fourthAhead.load(), 1);
        QVERIFY(third.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
        { auto freed = std::move(first.value()); }
        auto thirdSlot = third.get();
        QVERIFY(thirdSlot.ok());
        QCOMPARE(thirdSlot->index(), 0);
        QTRY_COMPARE(fourthAhead.load(), 0); // now first in the queue
        { auto freed = std::move(thirdSlot.value()); }
        auto fourthSlot = fourth.get();
        QVERIFY(fourthSlot.ok());
        QCOMPARE(fourthSlot->index(), 0);
    }

    void eachRemoteHostHasItsOwnPlaces()
    {
        const QString server = QStringLiteral("qemu+ssh://root@server/system");
        auto local = sbw::SandboxSlot::acquire(1, {}, nullptr);
        auto remote = sbw::SandboxSlot::acquire(1, {}, nullptr, server);
        auto other = sbw::SandboxSlot::acquire(1, {}, nullptr, QStringLiteral("qemu+ssh://root@other/system"));
        QVERIFY(local.ok() && remote.ok() && other.ok()); // none waits for another host's
        std::atomic<int> ahead{-1};
        auto second = std::async(std::launch::async, [&] {
            return sbw::SandboxSlot::acquire(1, [&](int n) { ahead = n; }, nullptr, server);
        });
        QTRY_COMPARE(ahead.load(), 0); // the server's one place is taken
        { auto freed = std::move(local.value()); }
        QVERIFY(second.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
        { auto freed = std::move(remote.value()); }
        QVERIFY(second.get().ok());
    }

    void cancelEndsTheWait()
    {
        auto only = sbw::SandboxSlot::acquire(1, {}, nullptr);
        QVERIFY(only.ok());
        std::atomic_bool cancel{false};
        auto waiting = std::async(std::launch::async, [&] { return sbw::SandboxSlot::acquire(1, {}, &cancel); });
        QTest::qWait(250);
        cancel = true;
        const auto result = waiting.get();
        QVERIFY(!result.ok());
        QCOMPARE(result.error().message, QStringLiteral("cancelled while waiting for a free sandbox"));
    }

    // Runs that arrive at the same moment each get a place: a ticket another waiter lists
    // is already held, so it is neither taken for abandoned and deleted nor left unlockable.
    // The race needs a waiter to list a ticket between its creation and its lock: 400 arrivals
    // find it often, not always (before the fix, 3200 failed 1–2 in 2 runs of 3).
    void runsArrivingTogetherAllGetAPlace()
    {
        constexpr int kThreads = 16;
        constexpr int kEach = 25;
        std::atomic<int> failed{0};
        QString firstError;
        std::mutex mutex;
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < kEach; ++i) {
                    auto slot = sbw::SandboxSlot::acquire(kThreads, {}, nullptr);
                    if (!slot) {
                        std::lock_guard lock(mutex);
                        if (failed++ == 0)
                            firstError = slot.error().message;
                    }
                }
            });
        for (std::thread& thread : threads)
            thread.join();
        QVERIFY2(failed == 0, qPrintable(QStringLiteral("%1 failed: %2").arg(failed.load()).arg(firstError)));
        const QDir queue(m_state.path() + QStringLiteral("/sandbox-workbench/capacity/queue"));
        QCOMPARE(queue.entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void deadHolderFreesItsPlace()
    {
        int ready[2];
        QCOMPARE(::pipe(ready), 0);
        const pid_t child = ::fork();
        if (child == 0) {
            auto held = sbw::SandboxSlot::acquire(1, {}, nullptr);
            const char byte = held.ok() ? 'y' : 'n';
            (void)::write(ready[1], &byte, 1);
            ::pause(); // killed below, without releasing anything itself
            ::_exit(0);
        }
        char byte = 0;
        QCOMPARE(::read(ready[0], &byte, 1), ssize_t(1));
        QCOMPARE(byte, 'y');
        std::atomic<int> ahead{-1};
        auto waiting = std::async(std::launch::async, [&] {
            return sbw::SandboxSlot::acquire(1, [&](int n) { ahead = n; }, nullptr);
        });
        QTRY_COMPARE(ahead.load(), 0);
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
        const auto slot = waiting.get();
        QVERIFY(slot.ok());
        ::close(ready[0]);
        ::close(ready[1]);
    }
};

QTEST_GUILESS_MAIN(TestSandboxSlot)
#include "tst_sandboxslot.moc"
