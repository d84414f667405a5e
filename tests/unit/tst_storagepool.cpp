#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"

#include <QTemporaryDir>
#include <QTest>

// The storage pool against libvirt's test driver: defined on first use, overlays created with
// a backing store, listed by prefix and deleted.
class TestStoragePool : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;

private Q_SLOTS:
    void initTestCase() { qputenv("XDG_DATA_HOME", m_data.path().toUtf8()); }

    void overlayLifecycle()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        QVERIFY(connection.ensureOpen().ok());
        auto pool = sbw::StoragePool::open(connection.handle(), false);
        QVERIFY2(pool.ok(), pool ? "" : qPrintable(pool.error().message));
        // Opening again finds the same pool instead of failing.
        QVERIFY(sbw::StoragePool::open(connection.handle(), false).ok());

        sbw::StagedImage base;
        base.disk = QStringLiteral("/pool/base.qcow2");
        base.diskFormat = QStringLiteral("qcow2");
        base.diskVirtualSize = 1 << 30;
        auto overlay = pool->createOverlay(QStringLiteral("sbw-run-test.qcow2"), base);
        QVERIFY2(overlay.ok(), overlay ? "" : qPrintable(overlay.error().message));
        QVERIFY(overlay->endsWith(QLatin1String("/sbw-run-test.qcow2")));
        QCOMPARE(pool->volumeNames(QStringLiteral("sbw-run-")), QStringList{QStringLiteral("sbw-run-test.qcow2")});

        QVERIFY(pool->deleteVolume(QStringLiteral("sbw-run-test.qcow2")).ok());
        QVERIFY(pool->volumeNames(QStringLiteral("sbw-run-")).isEmpty());
        // Deleting what is not there is not an error (clean-up paths call it unconditionally).
        QVERIFY(pool->deleteVolume(QStringLiteral("sbw-run-test.qcow2")).ok());
    }
};

QTEST_GUILESS_MAIN(TestStoragePool)
#include "tst_storagepool.moc"
