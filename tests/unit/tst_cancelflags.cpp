#include "base/CancelFlags.h"

#include <QTest>

#include <array>

// Any one of the flags cancels; null flags are ignored; no flag is dropped however many there are.
class TestCancelFlags : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noFlagNeverCancels()
    {
        QVERIFY(!sbw::CancelFlags().requested());
        QVERIFY(!sbw::CancelFlags(nullptr).requested());
    }

    void everyFlagCounts()
    {
        std::array<std::atomic_bool, 6> flags{};
        for (size_t set = 0; set < flags.size(); ++set) {
            sbw::CancelFlags cancel;
            for (const std::atomic_bool& flag : flags)
                cancel.add(&flag);
            cancel.add(nullptr);
            QVERIFY(!cancel.requested());
            flags[set] = true;
            QVERIFY2(cancel.requested(), qPrintable(QStringLiteral("flag %1").arg(set)));
            const sbw::CancelFlags copy = cancel;
            QVERIFY(copy.requested());
            flags[set] = false;
            QVERIFY(!copy.requested());
        }
    }
};

QTEST_GUILESS_MAIN(TestCancelFlags)
#include "tst_cancelflags.moc"
