#include "stats/StatsHistory.h"

#include <QTest>

// The history ring: order, wrap-around at capacity, one ring per sandbox, gone sandboxes dropped.
namespace {

sbw::StatsTick tick(qint64 timeMs, const QStringList& uuids)
{
    sbw::StatsTick t;
    t.timeMs = timeMs;
    t.host.timeMs = timeMs;
    for (const QString& uuid : uuids) {
        sbw::SandboxSample s;
        s.timeMs = timeMs;
        s.uuid = uuid;
        t.sandboxes.append(s);
    }
    return t;
}

QList<qint64> times(const QList<sbw::SandboxSample>& samples)
{
    QList<qint64> out;
    for (const auto& s : samples)
        out.append(s.timeMs);
    return out;
}

} // namespace

class TestStatsHistory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ringWrapsKeepingNewestOldestFirst()
    {
        sbw::SampleRing<int> ring(3);
        ring.append(1);
        ring.append(2);
        QCOMPARE(ring.toList(), (QList<int>{1, 2}));
        ring.append(3);
        ring.append(4);
        ring.append(5);
        QCOMPARE(ring.toList(), (QList<int>{3, 4, 5}));
        QCOMPARE(ring.size(), 3);
        for (int i = 6; i <= 10; ++i)
            ring.append(i);
        QCOMPARE(ring.toList(), (QList<int>{8, 9, 10}));
    }

    void historyPerSandbox()
    {
        sbw::StatsHistory history(3);
        history.append(tick(1, {"a"}));
        history.append(tick(2, {"a", "b"}));
        history.append(tick(3, {"a", "b"}));
        history.append(tick(4, {"a", "b"}));
        QCOMPARE(times(history.sandbox("a")), (QList<qint64>{2, 3, 4}));
        QCOMPARE(times(history.sandbox("b")), (QList<qint64>{2, 3, 4}));
        QCOMPARE(history.sandboxes(), (QStringList{"a", "b"}));
        QCOMPARE(history.host().size(), 3);
        QCOMPARE(history.host().constLast().timeMs, 4);
        QVERIFY(history.sandbox("unknown").isEmpty());
    }

    void goneSandboxIsDroppedAfterCapacityTicks()
    {
        sbw::StatsHistory history(3);
        history.append(tick(1, {"a", "gone"}));
        history.append(tick(2, {"a"}));
        history.append(tick(3, {"a"}));
        QCOMPARE(times(history.sandbox("gone")), (QList<qint64>{1})); // still visible for a while
        history.append(tick(4, {"a"}));
        QVERIFY(history.sandbox("gone").isEmpty());
        QCOMPARE(history.sandboxes(), (QStringList{"a"}));
    }
};

QTEST_GUILESS_MAIN(TestStatsHistory)
#include "tst_statshistory.moc"
