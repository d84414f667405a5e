// SerialConsoleView follows its domain's lifecycle (libvirt's test:///default driver, no VM):
// the status line says why the console closed, and the view tries to reattach on start.

#include "hypervisor/HypervisorConnection.h"
#include "terminal/SerialConsoleView.h"

#include <QSignalSpy>
#include <QtTest>
#include <libvirt/libvirt.h>

class TestSerialConsoleView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void statusFollowsTheDomain()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        auto opened = connection.ensureOpen();
        QVERIFY2(opened.ok(), opened ? "" : qPrintable(opened.error().message));

        // The test driver has no console streams: attaching fails, and says so.
        const QString refused =
            QStringLiteral("console not attached: cannot open the serial console of test: ");
        sbw::SerialConsoleView view(connection, QStringLiteral("test"));
        QVERIFY2(view.statusText().startsWith(refused), qPrintable(view.statusText()));
        QVERIFY(!view.isAttached());

        QSignalSpy status(&view, &sbw::SerialConsoleView::statusChanged);
        virDomainPtr domain = virDomainLookupByName(connection.handle(), "test");
        QVERIFY(domain);
        QCOMPARE(virDomainDestroy(domain), 0);
        QTRY_COMPARE(view.statusText(), QStringLiteral("console closed: guest destroyed"));
        // Starting the domain again makes the view try to reattach.
        QCOMPARE(virDomainCreate(domain), 0);
        QTRY_COMPARE(status.count(), 2);
        QVERIFY2(view.statusText().startsWith(refused), qPrintable(view.statusText()));
        // A shutdown from inside the guest (here: the test driver's) is a power-off.
        QCOMPARE(virDomainShutdown(domain), 0);
        QTRY_COMPARE(view.statusText(), QStringLiteral("console closed: guest powered off"));
        virDomainFree(domain);
    }
};

QTEST_MAIN(TestSerialConsoleView)
#include "tst_serialconsoleview.moc"
