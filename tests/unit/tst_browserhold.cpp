// The person's hold on a workspace's browser, kept on the host: taken and handed back by this
// process, seen by every program reading the same data folder, refused while another running
// process holds it, and void once the process that took it has ended.

#include "browser/BrowserHold.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace sbw;

class TestBrowserHold : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;

    /// Writes a hold as another process `pid` would.
    void writeForeignHold(const QString& workspace, const QString& person, qint64 pid)
    {
        const QString folder = m_data.filePath(QStringLiteral("sandbox-workbench/browser/held"));
        QVERIFY(QDir().mkpath(folder));
        QFile file(folder + QLatin1Char('/') + workspace);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(QJsonObject{{QStringLiteral("person"), person}, {QStringLiteral("pid"), pid}}).toJson());
    }

private Q_SLOTS:
    void initTestCase() { qputenv("XDG_DATA_HOME", m_data.path().toUtf8()); }

    void takeAndHandBack()
    {
        QCOMPARE(browser_hold::heldBy(QStringLiteral("alpha")), QString());
        QVERIFY(browser_hold::take(QStringLiteral("alpha"), QStringLiteral("Zoë O'Neil")).ok());
        QCOMPARE(browser_hold::heldBy(QStringLiteral("alpha")), QStringLiteral("Zoë O'Neil"));
        QCOMPARE(browser_hold::heldBy(QStringLiteral("beta")), QString()); // per workspace
        // Taking it again in the same process is fine (the same window).
        QVERIFY(browser_hold::take(QStringLiteral("alpha"), QStringLiteral("Zoë O'Neil")).ok());
        browser_hold::release(QStringLiteral("alpha"));
        QCOMPARE(browser_hold::heldBy(QStringLiteral("alpha")), QString());
    }

    void anotherRunningProcessKeepsItsHold()
    {
        QProcess other;
        other.start(QStringLiteral("sleep"), {QStringLiteral("60")});
        QVERIFY(other.waitForStarted());
        writeForeignHold(QStringLiteral("gamma"), QStringLiteral("bob"), other.processId());
        QCOMPARE(browser_hold::heldBy(QStringLiteral("gamma")), QStringLiteral("bob"));
        const auto taken = browser_hold::take(QStringLiteral("gamma"), QStringLiteral("alice"));
        QVERIFY(!taken.ok());
        QCOMPARE(taken.error().message, QStringLiteral("bob already holds the browser of workspace 'gamma' in another window"));
        browser_hold::release(QStringLiteral("gamma")); // not ours: stays
        QCOMPARE(browser_hold::heldBy(QStringLiteral("gamma")), QStringLiteral("bob"));

        // The holder ends (a window that crashed): its hold no longer counts, and can be taken.
        other.kill();
        QVERIFY(other.waitForFinished());
        QCOMPARE(browser_hold::heldBy(QStringLiteral("gamma")), QString());
        QVERIFY(browser_hold::take(QStringLiteral("gamma"), QStringLiteral("alice")).ok());
        QCOMPARE(browser_hold::heldBy(QStringLiteral("gamma")), QStringLiteral("alice"));
        browser_hold::release(QStringLiteral("gamma"));
    }

    void unreadableHoldIsNoHold()
    {
        writeForeignHold(QStringLiteral("delta"), QStringLiteral("carol"), 0);
        QCOMPARE(browser_hold::heldBy(QStringLiteral("delta")), QString());
        QFile junk(m_data.filePath(QStringLiteral("sandbox-workbench/browser/held/epsilon")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not json");
        junk.close();
        QCOMPARE(browser_hold::heldBy(QStringLiteral("epsilon")), QString());
    }
};

QTEST_GUILESS_MAIN(TestBrowserHold)
#include "tst_browserhold.moc"
