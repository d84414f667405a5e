#include "hypervisor/ConnectionUri.h"

#include <QTest>

class TestConnectionUri : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void choose_data()
    {
        QTest::addColumn<QString>("explicitUri");
        QTest::addColumn<QString>("environmentUri");
        QTest::addColumn<unsigned>("uid");
        QTest::addColumn<QString>("expected");
        QTest::newRow("--connect wins over everything")
            << "qemu+ssh://host/system" << "qemu:///session" << 0u << "qemu+ssh://host/system";
        QTest::newRow("LIBVIRT_DEFAULT_URI next") << "" << "test:///default" << 1000u << "test:///default";
        QTest::newRow("root gets system") << "" << "" << 0u << "qemu:///system";
        QTest::newRow("user gets session") << "" << "" << 1000u << "qemu:///session";
    }
    void choose()
    {
        QFETCH(QString, explicitUri);
        QFETCH(QString, environmentUri);
        QFETCH(unsigned, uid);
        QFETCH(QString, expected);
        QCOMPARE(sbw::chooseConnectionUri(explicitUri, environmentUri, uid), expected);
    }

    void systemUri()
    {
        QVERIFY(sbw::isSystemUri(QStringLiteral("qemu:///system")));
        QVERIFY(sbw::isSystemUri(QStringLiteral("qemu+ssh://root@host/system")));
        QVERIFY(!sbw::isSystemUri(QStringLiteral("qemu:///session")));
        QVERIFY(!sbw::isSystemUri(QStringLiteral("test:///default")));
    }

    void environmentIsRead()
    {
        qputenv("LIBVIRT_DEFAULT_URI", "test:///default");
        QCOMPARE(sbw::defaultConnectionUri(), QStringLiteral("test:///default"));
        QCOMPARE(sbw::defaultConnectionUri(QStringLiteral("qemu:///session")), QStringLiteral("qemu:///session"));
        qunsetenv("LIBVIRT_DEFAULT_URI");
    }
};

QTEST_GUILESS_MAIN(TestConnectionUri)
#include "tst_connectionuri.moc"
