#include "hypervisor/HypervisorConnection.h"

#include <QTest>

using sbw::Accelerator;

class TestAccelerator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fromCapabilities_data()
    {
        QTest::addColumn<QString>("xml");
        QTest::addColumn<Accelerator>("expected");
        const QString kvmGuest = QStringLiteral("<guest><arch name='x86_64'><domain type='qemu'/><domain type='kvm'/></arch></guest>");
        const QString tcgGuest = QStringLiteral("<guest><arch name='x86_64'><domain type='qemu'/></arch></guest>");
        QTest::newRow("vmx host with kvm") << "<host><cpu><feature name='vmx'/></cpu></host>" + kvmGuest << Accelerator::Kvm;
        QTest::newRow("svm host with kvm") << "<host><cpu><feature name='svm'/></cpu></host>" + kvmGuest << Accelerator::Kvm;
        QTest::newRow("/dev/kvm without hardware virtualisation")
            << "<host><cpu><feature name='hypervisor'/></cpu></host>" + kvmGuest << Accelerator::Tcg;
        QTest::newRow("no kvm domain type") << "<host><cpu><feature name='vmx'/></cpu></host>" + tcgGuest << Accelerator::Tcg;
        QTest::newRow("empty") << QString() << Accelerator::Tcg;
    }
    void fromCapabilities()
    {
        QFETCH(QString, xml);
        QFETCH(Accelerator, expected);
        QCOMPARE(sbw::acceleratorFromCapabilities(xml), expected);
    }

    void testDriverConnects()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        QVERIFY(connection.ensureOpen().ok());
        QVERIFY(connection.handle());
        connection.markKvmUnusable(QStringLiteral("test"));
        QCOMPARE(connection.accelerator(), Accelerator::Tcg);
        connection.close();
        QVERIFY(!connection.handle());
    }

    void deadDaemonIsAClearError()
    {
        sbw::HypervisorConnection connection(QStringLiteral("qemu+unix:///system?socket=/nonexistent/sock"));
        auto opened = connection.ensureOpen();
        QVERIFY(!opened);
        QVERIFY2(opened.error().message.startsWith(QLatin1String("cannot connect to libvirt at qemu+unix:///system")),
                 qPrintable(opened.error().message));
        QVERIFY(opened.error().message.contains(QLatin1String("is libvirtd running?")));
    }
};

QTEST_GUILESS_MAIN(TestAccelerator)
#include "tst_accelerator.moc"
