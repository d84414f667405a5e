// The pure parts of restoring runs from a saved ready state: the save image's header, the
// state's name (what it depends on), a clone's definition and the reseed command.

#include "hypervisor/DomainSpec.h"
#include "hypervisor/SaveImage.h"
#include "readystate/ReadyStateKey.h"
#include "sandbox/CloneDomainXml.h"
#include "sandbox/GuestFreshening.h"
#include "sandbox/RunLease.h"

#include <QDomDocument>
#include <QTest>
#include <QTimeZone>
#include <QtEndian>

#include <functional>

namespace {

/// A save image's first bytes as libvirt 9.0 wrote them for a run (version 2, raw, running).
QByteArray saveHeader(quint32 version, quint32 xmlLength, quint32 format)
{
    QByteArray header("LibvirtQemudSave");
    for (quint32 word : {version, xmlLength, 1u, format, 0u})
        header += QByteArray(reinterpret_cast<const char*>(&word), 4);
    header += QByteArray(sbw::save_image::kHeaderBytes - header.size(), '\0');
    return header;
}

QString runXml()
{
    sbw::DomainSpec spec;
    spec.kind = sbw::DomainSpec::Kind::Ephemeral;
    spec.name = QStringLiteral("sbw-state-0123456789abcdef-01234567-00112233aabbccdd");
    spec.uuid = QStringLiteral("6f1c3c43-6c1b-4a55-9d0e-2a1f2f7a1b11");
    spec.kernel = QStringLiteral("/pool/abc-vmlinuz");
    spec.initrd = QStringLiteral("/pool/abc-initrd.img");
    spec.cmdline = QStringLiteral("console=ttyS0 root=/dev/vda sbw.key=ssh-ed25519:AAAA sbw.run=1");
    spec.disk = QStringLiteral("/pool/sbw-state-0123456789abcdef-01234567-00112233aabbccdd.qcow2");
    spec.sshPort = QStringLiteral("org.sbw.ssh.0");
    spec.agentPort = QStringLiteral("org.qemu.guest_agent.0");
    spec.imageRecipe = QStringLiteral("minimal");
    spec.imageHash = QStringLiteral("0123456789abcdef");
    spec.created = QDateTime(QDate(2026, 12, 1), QTime(9, 0), QTimeZone::utc());
    return sbw::domainXml(spec);
}

} // namespace

class TestReadyStateParts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void streamStartsAfterTheHeaderAndTheXml()
    {
        const auto offset = sbw::save_image::streamOffset(saveHeader(2, 68994, 0));
        QVERIFY(offset.ok());
        QCOMPARE(offset.value(), qint64(92 + 68994));
        QVERIFY(sbw::save_image::isStreamStart("QEVM\0\0\0\3"));
        QVERIFY(!sbw::save_image::isStreamStart("LibvirtQemudSave"));
    }

    void otherSaveImagesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QString>("error");
        QTest::newRow("not one") << QByteArray(92, 'x') << QStringLiteral("not a libvirt save image");
        QTest::newRow("short") << saveHeader(2, 10, 0).left(40) << QStringLiteral("not a libvirt save image");
        QTest::newRow("version 3") << saveHeader(3, 10, 0)
                                   << QStringLiteral("a libvirt save image of version 3, which this workbench cannot load");
        QTest::newRow("gzip") << saveHeader(2, 10, 1)
                              << QStringLiteral("a compressed libvirt save image (format 1); only raw ones are loaded");
    }

    void otherSaveImagesAreRefused()
    {
        QFETCH(QByteArray, header);
        QFETCH(QString, error);
        const auto offset = sbw::save_image::streamOffset(header);
        QVERIFY(!offset.ok());
        QCOMPARE(offset.error().message, error);
    }

    void everyInputChangesTheName()
    {
        sbw::ReadyStateInputs base;
        base.buildId = QStringLiteral("0123456789abcdef-01234567");
        base.memoryMiB = 512;
        base.vcpus = 2;
        base.diskBytes = qint64(4) << 30;
        base.clientKey = QStringLiteral("ssh-ed25519:AAAA");
        base.libvirtVersion = 9000000;
        base.hypervisorVersion = 7002022;
        const QString name = sbw::readyStateName(base);
        QVERIFY2(name.startsWith(QLatin1String("sbw-state-0123456789abcdef-01234567-")), qPrintable(name));
        QVERIFY(name.startsWith(sbw::readyStatePrefix(QStringLiteral("0123456789abcdef"))));
        QCOMPARE(name.size(), QStringLiteral("sbw-state-0123456789abcdef-01234567-").size() + 16);
        QCOMPARE(sbw::readyStateName(base), name);
        const std::function<void(sbw::ReadyStateInputs&)> changes[] = {
            [](auto& i) { i.buildId = QStringLiteral("0123456789abcdef-76543210"); },
            [](auto& i) { i.memoryMiB = 384; },
            [](auto& i) { i.vcpus = 1; },
            [](auto& i) { i.cpuSharePercent = 50; },
            [](auto& i) { i.diskBytes += 1 << 30; },
            [](auto& i) { i.kvm = true; },
            [](auto& i) { i.clientKey = QStringLiteral("ssh-ed25519:BBBB"); },
            [](auto& i) { i.libvirtVersion = 10000000; },
            [](auto& i) { i.hypervisorVersion = 8002000; },
        };
        QStringList names{name};
        for (const auto& change : changes) {
            sbw::ReadyStateInputs changed = base;
            change(changed);
            names << sbw::readyStateName(changed);
        }
        names.removeDuplicates();
        QCOMPARE(names.size(), 10);
    }

    void cloneKeepsTheDevicesAndWaitsForTheState()
    {
        const QString saved = runXml();
        const QDateTime created(QDate(2026, 12, 4), QTime(10, 30, 5, 250), QTimeZone::utc());
        const auto xml = sbw::cloneDomainXml(saved, {QStringLiteral("sbw-run-20261204-103005-ab12"),
                                                     QStringLiteral("11111111-2222-3333-4444-555555555555"),
                                                     QStringLiteral("/pool/sbw-run-20261204-103005-ab12.qcow2"), created, {}},
                                             sbw::CloneLoad::IncomingDefer);
        QVERIFY2(xml.ok(), xml ? "" : qPrintable(xml.error().message));
        QDomDocument clone;
        QVERIFY(clone.setContent(xml.value()));
        const QDomElement domain = clone.documentElement();
        QCOMPARE(domain.firstChildElement(QStringLiteral("name")).text(), QStringLiteral("sbw-run-20261204-103005-ab12"));
        QCOMPARE(domain.firstChildElement(QStringLiteral("uuid")).text(), QStringLiteral("11111111-2222-3333-4444-555555555555"));
        const QDomElement disk = domain.firstChildElement(QStringLiteral("devices")).firstChildElement(QStringLiteral("disk"));
        QCOMPARE(disk.firstChildElement(QStringLiteral("source")).attribute(QStringLiteral("file")),
                 QStringLiteral("/pool/sbw-run-20261204-103005-ab12.qcow2"));
        QVERIFY(xml->contains(QLatin1String("<sbw:overlay>/pool/sbw-run-20261204-103005-ab12.qcow2</sbw:overlay>")));
        QVERIFY(xml->contains(QLatin1String("<sbw:created>2026-12-04T10:30:05.250Z</sbw:created>")));
        QCOMPARE(domain.attribute(QStringLiteral("xmlns:qemu")), QStringLiteral("http://libvirt.org/schemas/domain/qemu/1.0"));
        QVERIFY2(xml->contains(QLatin1String("<qemu:commandline>\n  <qemu:arg value=\"-incoming\"/>\n  <qemu:arg value=\"defer\"/>\n </qemu:commandline>")),
                 qPrintable(xml.value()));
        // Everything the saved memory depends on is as saved: the kernel command line, the devices.
        QDomDocument original;
        QVERIFY(original.setContent(saved));
        for (const QString& kept : {QStringLiteral("os"), QStringLiteral("memory"), QStringLiteral("vcpu"), QStringLiteral("features")})
            QCOMPARE(clone.documentElement().firstChildElement(kept).text(), original.documentElement().firstChildElement(kept).text());
        QCOMPARE(clone.documentElement().firstChildElement(QStringLiteral("devices")).childNodes().size(),
                 original.documentElement().firstChildElement(QStringLiteral("devices")).childNodes().size());
    }

    void cloneFromASaveImageHasNoIncoming()
    {
        const auto xml = sbw::cloneDomainXml(runXml(), {QStringLiteral("sbw-run-20261204-103005-ab12"),
                                                        QStringLiteral("11111111-2222-3333-4444-555555555555"),
                                                        QStringLiteral("/pool/sbw-run-20261204-103005-ab12.qcow2"),
                                                        QDateTime::currentDateTimeUtc(),
                                                        QDateTime(QDate(2026, 12, 4), QTime(10, 35, 5), QTimeZone::utc())},
                                             sbw::CloneLoad::SaveImage);
        QVERIFY2(xml.ok(), xml ? "" : qPrintable(xml.error().message));
        QVERIFY(xml->contains(QLatin1String("<name>sbw-run-20261204-103005-ab12</name>")));
        // Its lease is in the definition, for libvirt's metadata API (its namespace).
        QDomDocument clone;
        QVERIFY(clone.setContent(xml.value(), true));
        const QDomElement lease = clone.documentElement()
                                      .firstChildElement(QStringLiteral("metadata"))
                                      .firstChildElement(QStringLiteral("lease"));
        QCOMPARE(lease.namespaceURI(), QLatin1String(sbw::kRunLeaseNamespace));
        QCOMPARE(lease.attribute(QStringLiteral("until")), QStringLiteral("2026-12-04T10:35:05Z"));
        QVERIFY2(!xml->contains(QLatin1String("commandline")), qPrintable(xml.value()));
    }

    // A copy of a save image gets the clone's XML in place: same length, the cookie after the
    // new XML (the header says where), zeros to the end, the stream where it was.
    void saveImageHeadTakesANewDomainXml()
    {
        const QByteArray data = QByteArray("<domain>old</domain>") + '\0' + "<cookie/>" + '\0' + QByteArray(34, '\0');
        QByteArray head = saveHeader(2, quint32(data.size()), 0);
        qToUnaligned(quint32(21), head.data() + 32);
        head += data;
        QCOMPARE(sbw::save_image::domainXml(head).value(), QByteArray("<domain>old</domain>"));

        const auto rewritten = sbw::save_image::withDomainXml(head, "<domain>a longer one</domain>");
        QVERIFY2(rewritten.ok(), rewritten ? "" : qPrintable(rewritten.error().message));
        QCOMPARE(rewritten->size(), head.size());
        QCOMPARE(rewritten->first(32), head.first(32));
        QCOMPARE(qFromUnaligned<quint32>(rewritten->constData() + 32), quint32(30));
        QCOMPARE(rewritten->sliced(36, 92 - 36), head.sliced(36, 92 - 36));
        QCOMPARE(rewritten->sliced(92), QByteArray("<domain>a longer one</domain>") + '\0' + "<cookie/>" + '\0' +
                                            QByteArray(25, '\0'));
        QCOMPARE(sbw::save_image::domainXml(rewritten.value()).value(), QByteArray("<domain>a longer one</domain>"));

        // Version 1 has no cookie; a definition too long for the padded space is refused.
        QByteArray version1 = saveHeader(1, 16, 0) + QByteArray("<domain/>") + QByteArray(7, '\0');
        QCOMPARE(sbw::save_image::withDomainXml(version1, "<d>12345</d>").value().sliced(92),
                 QByteArray("<d>12345</d>") + QByteArray(4, '\0'));
        const auto tooLong = sbw::save_image::withDomainXml(version1, "<domain>123456</domain>");
        QVERIFY(!tooLong.ok());
        QCOMPARE(tooLong.error().message,
                 QStringLiteral("the new domain XML (23 bytes) does not fit in the save image (16 bytes for it)"));
        QVERIFY(!sbw::save_image::withDomainXml(head.first(100), "<d/>").ok());
    }

    void cloneOfNoDomainIsRefused()
    {
        const auto xml = sbw::cloneDomainXml(QStringLiteral("<network/>"), {}, sbw::CloneLoad::SaveImage);
        QVERIFY(!xml.ok());
        QCOMPARE(xml.error().message, QStringLiteral("the saved state's definition has no <domain> element"));
    }

    void reseedCommandCarriesSeedTimeAndBootId()
    {
        const QByteArray seed(64, '\xab');
        QCOMPARE(sbw::freshenCommand(seed, 1796424068, 589489700, QStringLiteral("aa03ae7c-8b9d-4da7-b6ff-4ac143cd302b")),
                 "perl - " + QByteArray(128, 'a').replace("aa", "ab") + " 1796424068 589489700 aa03ae7c-8b9d-4da7-b6ff-4ac143cd302b");
    }
};

QTEST_GUILESS_MAIN(TestReadyStateParts)
#include "tst_readystateparts.moc"
