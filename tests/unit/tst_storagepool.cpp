#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"

#include <QTemporaryDir>
#include <QTest>
#include <libvirt/libvirt.h>

// The storage pool against libvirt's test driver: defined on first use, overlays created with
// a backing store, listed by prefix and deleted; a deletion the daemon could not be asked about
// is a failure, one whose pool is gone is not.
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

    void deletionOfAVolumeThatCannotBeLookedUpFails()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        QVERIFY(connection.ensureOpen().ok());
        auto pool = sbw::StoragePool::open(connection.handle(), false);
        QVERIFY(pool.ok());
        const QString name = QStringLiteral("sbw-run-kept.qcow2");
        QVERIFY(pool->createVolume(name).ok());
        // A stopped pool's volumes cannot be looked up: whether this one is there is unknown.
        virStoragePoolPtr stopped = virStoragePoolLookupByName(connection.handle(), sbw::StoragePool::kName);
        QVERIFY(stopped && virStoragePoolDestroy(stopped) == 0);
        auto deleted = pool->deleteVolume(name);
        QVERIFY(!deleted.ok());
        QVERIFY2(deleted.error().message.startsWith(QLatin1String("cannot delete volume sbw-run-kept.qcow2")),
                 qPrintable(deleted.error().message));
        // Without its pool the volume is gone too.
        QCOMPARE(virStoragePoolUndefine(stopped), 0);
        virStoragePoolFree(stopped);
        QVERIFY(pool->deleteVolume(name).ok());
    }
};

QTEST_GUILESS_MAIN(TestStoragePool)
#include "tst_storagepool.moc"
