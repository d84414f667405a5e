// parseProcUptime(): the guest's /proc/uptime becomes the session list's uptime; anything else
// the guest could send is refused.

#include "workspace/WorkspaceUptime.h"

#include <QtTest>

using namespace sbw;
using std::chrono::milliseconds;

class TestWorkspaceUptime : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesTheFirstField_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("minutes") << QByteArray("263.42 498.11\n") << qint64(263420);
        QTest::newRow("just booted") << QByteArray("0.51 0.90\n") << qint64(510);
        QTest::newRow("days") << QByteArray("1209600.00 2400000.13") << qint64(1209600000);
    }
    void parsesTheFirstField()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, ms);
        QCOMPARE(parseProcUptime(text), std::optional<milliseconds>(milliseconds(ms)));
    }

    void refusesWhatIsNoUptime_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("one field") << QByteArray("263.42\n");
        QTest::newRow("words") << QByteArray("up 5 minutes");
        QTest::newRow("negative") << QByteArray("-5.00 1.00\n");
        QTest::newRow("nan") << QByteArray("nan 1.00\n");
        QTest::newRow("infinite") << QByteArray("inf 1.00\n");
        QTest::newRow("centuries") << QByteArray("9999999999.00 1.00\n");
        QTest::newRow("escape") << QByteArray("\x1b[2J 1.00\n");
    }
    void refusesWhatIsNoUptime()
    {
        QFETCH(QByteArray, text);
        QCOMPARE(parseProcUptime(text), std::nullopt);
    }
};

QTEST_APPLESS_MAIN(TestWorkspaceUptime)
#include "tst_workspaceuptime.moc"
