#include "image/GuestImage.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

class TestGuestImage : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    void write(const QString& relative, const QByteArray& content)
    {
        QFile file(m_dir.filePath(relative));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
    }

    static QByteArray manifest(const char* hostKey = "ssh-ed25519 AAAAkey",
                               const char* sshPorts = ",\"ssh_ports\":[\"org.sbw.ssh.0\",\"org.sbw.ssh.1\"]")
    {
        return QByteArray("{\"recipe\":\"minimal\",\"hash\":\"0123456789abcdef\","
                          "\"kernel\":\"vmlinuz\",\"initrd\":\"initrd.img\","
                          "\"disk\":\"rootfs.qcow2\",\"disk_format\":\"qcow2\","
                          "\"disk_virtual_size\":4294967296,"
                          "\"cmdline\":\"console=ttyS0 root=/dev/vda\",\"host_key\":\"")
               + hostKey + "\",\"ssh_port\":\"org.sbw.ssh.0\"" + sshPorts + '}';
    }

private Q_SLOTS:
    void missingImageNamesTheBuildCommand()
    {
        auto image = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY(!image);
        QVERIFY2(image.error().message.contains(QLatin1String("sbw image build minimal")),
                 qPrintable(image.error().message));
    }

    void loadsThroughTheRecipeLink()
    {
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("0123456789abcdef")));
        QVERIFY(QFile::link(QStringLiteral("0123456789abcdef"), m_dir.filePath(QStringLiteral("minimal"))));
        write(QStringLiteral("0123456789abcdef/manifest.json"), manifest());
        for (const char* name : {"vmlinuz", "initrd.img", "rootfs.qcow2"})
            write(QStringLiteral("0123456789abcdef/") + QLatin1String(name), "x");

        auto image = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY2(image.ok(), image ? "" : qPrintable(image.error().message));
        QCOMPARE(image->hash, QStringLiteral("0123456789abcdef"));
        QCOMPARE(image->kernel, m_dir.filePath(QStringLiteral("0123456789abcdef/vmlinuz")));
        QCOMPARE(image->disk, m_dir.filePath(QStringLiteral("0123456789abcdef/rootfs.qcow2")));
        QCOMPARE(image->diskVirtualSize, Q_INT64_C(4294967296));
        QCOMPARE(image->hostKey, QStringLiteral("ssh-ed25519 AAAAkey"));
        QCOMPARE(image->sshPort, QStringLiteral("org.sbw.ssh.0"));
        QCOMPARE(image->sshPorts, QStringList({QStringLiteral("org.sbw.ssh.0"),
                                               QStringLiteral("org.sbw.ssh.1")}));
        QVERIFY(image->buildId.startsWith(QLatin1String("0123456789abcdef-")));
        QCOMPARE(image->buildId.size(), 16 + 1 + 8);

        // A rebuild of the same recipe has the same hash but a new host key: another build id,
        // so the storage pool never serves the old build's disk.
        write(QStringLiteral("0123456789abcdef/manifest.json"), manifest("ssh-ed25519 AAAAother"));
        auto rebuilt = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY(rebuilt.ok());
        QCOMPARE(rebuilt->hash, image->hash);
        QVERIFY(rebuilt->buildId != image->buildId);

        // An image from before guests served several SSH ports has only ssh_port.
        write(QStringLiteral("0123456789abcdef/manifest.json"), manifest("ssh-ed25519 AAAAkey", ""));
        auto older = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY(older.ok());
        QCOMPARE(older->sshPorts, QStringList{QStringLiteral("org.sbw.ssh.0")});
        write(QStringLiteral("0123456789abcdef/manifest.json"), manifest());
    }

    void pathsAreNotImageNames()
    {
        auto image = sbw::GuestImage::load(m_dir.path(), QStringLiteral("/tmp/x.recipe"));
        QVERIFY(!image);
        QVERIFY2(image.error().message.contains(QLatin1String("is not an image name")), qPrintable(image.error().message));
    }

    void missingFileIsReported()
    {
        QFile::remove(m_dir.filePath(QStringLiteral("0123456789abcdef/initrd.img")));
        auto image = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY(!image);
        QVERIFY2(image.error().message.contains(QLatin1String("initrd.img is missing")),
                 qPrintable(image.error().message));
    }

    void incompleteManifestIsReported()
    {
        write(QStringLiteral("0123456789abcdef/manifest.json"), manifest(""));
        auto image = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY(!image);
        QVERIFY2(image.error().message.contains(QLatin1String("host_key")), qPrintable(image.error().message));
    }

    void invalidJsonIsReported()
    {
        write(QStringLiteral("0123456789abcdef/manifest.json"), "{ not json");
        auto image = sbw::GuestImage::load(m_dir.path(), QStringLiteral("minimal"));
        QVERIFY(!image);
        QVERIFY2(image.error().message.contains(QLatin1String("not valid JSON")), qPrintable(image.error().message));
    }
};

QTEST_GUILESS_MAIN(TestGuestImage)
#include "tst_guestimage.moc"
