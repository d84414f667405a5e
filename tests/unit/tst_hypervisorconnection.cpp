// HypervisorConnection's libvirt callbacks on libvirt's test driver: domain events reach an open
// connection through its callback target. (That a callback libvirt runs while the connection
// goes reaches nobody is what tst_runlimits showed: it crashed at exit in about half of its
// runs when the callbacks held a plain pointer to the connection.)

#include "hypervisor/HypervisorConnection.h"

#include <QSignalSpy>
#include <QTest>
#include <libvirt/libvirt.h>


namespace {

/// Defines and undefines a domain of the test driver: two lifecycle events.
void defineAndUndefine(sbw::HypervisorConnection& connection, const QByteArray& name)
{
    const QByteArray xml = "<domain type='test'><name>" + name +
                           "</name><memory>1024</memory><os><type>hvm</type></os></domain>";
    virDomainPtr domain = virDomainDefineXML(connection.handle(), xml.constData());
    QVERIFY(domain);
    QCOMPARE(virDomainUndefine(domain), 0);
    virDomainFree(domain);
}

} // namespace

class TestHypervisorConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void domainEventsReachAnOpenConnection()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        QVERIFY(connection.ensureOpen().ok());
        QSignalSpy events(&connection, &sbw::HypervisorConnection::domainLifecycle);
        defineAndUndefine(connection, "events");
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 2, 10000);
        QCOMPARE(events.at(0).at(1).toInt(), int(VIR_DOMAIN_EVENT_DEFINED));
        QCOMPARE(events.at(1).at(1).toInt(), int(VIR_DOMAIN_EVENT_UNDEFINED));
    }
};

QTEST_GUILESS_MAIN(TestHypervisorConnection)
#include "tst_hypervisorconnection.moc"
