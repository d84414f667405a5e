#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"

#include <QSet>
#include <QTest>
#include <QTimeZone>
#include <QUuid>
#include <QXmlStreamReader>

#include <libvirt/libvirt.h>

namespace {

sbw::DomainSpec sampleSpec(bool kvm)
{
    sbw::DomainSpec spec;
    spec.name = QStringLiteral("sbw-run-20261129-101500-3f2a");
    spec.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    spec.kvm = kvm;
    spec.memoryMiB = 384;
    spec.vcpus = 2;
    spec.tbCacheMiB = 64;
    spec.kernel = QStringLiteral("/pool/abc-vmlinuz");
    spec.initrd = QStringLiteral("/pool/abc-initrd.img");
    spec.cmdline = QStringLiteral("console=ttyS0 root=/dev/vda sbw.key=ssh-ed25519:AAAA");
    spec.disk = QStringLiteral("/pool/sbw-run-20261129-101500-3f2a.qcow2");
    spec.sshPort = QStringLiteral("org.sbw.ssh.0");
    spec.agentPort = QStringLiteral("org.qemu.guest_agent.0");
    spec.imageRecipe = QStringLiteral("minimal");
    spec.imageHash = QStringLiteral("0123456789abcdef");
    spec.created = QDateTime(QDate(2026, 11, 29), QTime(10, 15), QTimeZone::utc());
    return spec;
}

/// Text of the first element `path` (slash-separated local names from the root) or of its
/// attribute after '@'.
QString valueAt(const QString& xml, const QString& path)
{
    const QStringList wanted = path.section(QLatin1Char('@'), 0, 0).split(QLatin1Char('/'));
    const QString attribute = path.section(QLatin1Char('@'), 1);
    QXmlStreamReader reader(xml);
    QStringList stack;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement()) {
            stack << reader.name().toString();
            if (stack == wanted)
                return attribute.isEmpty() ? reader.readElementText()
                                           : reader.attributes().value(attribute).toString();
        } else if (reader.isEndElement()) {
            stack.removeLast();
        }
    }
    return QStringLiteral("<absent>");
}

} // namespace

class TestDomainSpec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tcgDomain()
    {
        const QString xml = sbw::domainXml(sampleSpec(false));
        QCOMPARE(valueAt(xml, QStringLiteral("domain@type")), QStringLiteral("qemu"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/name")), QStringLiteral("sbw-run-20261129-101500-3f2a"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/memory")), QStringLiteral("384"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/memory@unit")), QStringLiteral("MiB"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/vcpu")), QStringLiteral("2"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/os/type@machine")), QStringLiteral("q35"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/os/kernel")), QStringLiteral("/pool/abc-vmlinuz"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/os/initrd")), QStringLiteral("/pool/abc-initrd.img"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/os/cmdline")),
                 QStringLiteral("console=ttyS0 root=/dev/vda sbw.key=ssh-ed25519:AAAA norandmaps"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/features/tcg/tb-cache")), QStringLiteral("64"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/disk/driver@type")), QStringLiteral("qcow2"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/disk/source@file")),
                 QStringLiteral("/pool/sbw-run-20261129-101500-3f2a.qcow2"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/disk/target@bus")), QStringLiteral("virtio"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/serial@type")), QStringLiteral("pty"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/memballoon/stats@period")), QStringLiteral("1"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/memballoon@freePageReporting")), QStringLiteral("on"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/rng@model")), QStringLiteral("virtio"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/rng/backend")), QStringLiteral("/dev/urandom"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/interface")), QStringLiteral("<absent>"));
        QVERIFY(xml.contains(QLatin1String("name=\"org.sbw.ssh.0\"")));
        QVERIFY(xml.contains(QLatin1String("name=\"org.qemu.guest_agent.0\"")));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/metadata/sandbox/kind")), QStringLiteral("ephemeral"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/metadata/sandbox/image@hash")), QStringLiteral("0123456789abcdef"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/metadata/sandbox/created")),
                 QStringLiteral("2026-11-29T10:15:00.000Z"));
    }

    void kvmDomainHasNoTcgCacheAndKeepsAddressRandomisation()
    {
        const QString xml = sbw::domainXml(sampleSpec(true));
        QCOMPARE(valueAt(xml, QStringLiteral("domain@type")), QStringLiteral("kvm"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/features/tcg")), QStringLiteral("<absent>"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/cpu@mode")), QStringLiteral("host-passthrough"));
        QCOMPARE(valueAt(xml, QStringLiteral("domain/os/cmdline")),
                 QStringLiteral("console=ttyS0 root=/dev/vda sbw.key=ssh-ed25519:AAAA"));
    }

    void onlyEphemeralOverlaysSkipFlushes()
    {
        sbw::DomainSpec spec = sampleSpec(false);
        QCOMPARE(valueAt(sbw::domainXml(spec), QStringLiteral("domain/devices/disk/driver@cache")),
                 QStringLiteral("unsafe"));
        spec.kind = sbw::DomainSpec::Kind::Workspace;
        QCOMPARE(valueAt(sbw::domainXml(spec), QStringLiteral("domain/devices/disk/driver@cache")),
                 QString());
    }

    void serialConsoleIsLoggedWhenAsked()
    {
        sbw::DomainSpec spec = sampleSpec(false);
        QCOMPARE(valueAt(sbw::domainXml(spec), QStringLiteral("domain/devices/serial/log@file")),
                 QStringLiteral("<absent>"));
        spec.consoleLog = QStringLiteral("/pool/sbw-ws-a.console.log");
        const QString xml = sbw::domainXml(spec);
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/serial/log@file")), spec.consoleLog);
        QCOMPARE(valueAt(xml, QStringLiteral("domain/devices/serial/log@append")),
                 QStringLiteral("off"));
    }

    // Every PCI device sits on the root bus (pcie.0), each in a slot of its own, so libvirt adds
    // no pcie-root-port for it.
    void pciDevicesSitOnTheRootBus()
    {
        sbw::DomainSpec spec = sampleSpec(false);
        spec.natNetwork = true;
        QXmlStreamReader reader(sbw::domainXml(spec));
        QStringList owners;
        QSet<QString> slots;
        QStringList stack;
        while (!reader.atEnd()) {
            reader.readNext();
            if (reader.isEndElement())
                stack.removeLast();
            if (!reader.isStartElement())
                continue;
            stack << reader.name().toString();
            if (stack.last() != QLatin1String("address"))
                continue;
            const auto attributes = reader.attributes();
            QCOMPARE(attributes.value(QLatin1String("type")), QLatin1String("pci"));
            QCOMPARE(attributes.value(QLatin1String("bus")), QLatin1String("0x00"));
            slots.insert(attributes.value(QLatin1String("slot")).toString());
            owners << stack.at(stack.size() - 2);
        }
        std::sort(owners.begin(), owners.end());
        QCOMPARE(owners, (QStringList{QStringLiteral("controller"), QStringLiteral("disk"),
                                      QStringLiteral("interface"), QStringLiteral("memballoon"),
                                      QStringLiteral("rng")}));
        QCOMPARE(slots.size(), owners.size());
        QCOMPARE(valueAt(sbw::domainXml(spec), QStringLiteral("domain/devices/controller@type")),
                 QStringLiteral("virtio-serial"));
    }

    void namesAreEscaped()
    {
        sbw::DomainSpec spec = sampleSpec(false);
        spec.cmdline = QStringLiteral("a<b & \"c\"");
        QCOMPARE(valueAt(sbw::domainXml(spec), QStringLiteral("domain/os/cmdline")), spec.cmdline + QStringLiteral(" norandmaps"));
    }

    // libvirt's test driver accepts the XML, keeps our metadata, and the domain goes away when
    // destroyed (a transient domain, as ephemeral runs use).
    void lifecycleWithTestDriver()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        QVERIFY(connection.ensureOpen().ok());
        const sbw::DomainSpec spec = sampleSpec(false);
        const QByteArray xml = sbw::domainXml(spec).toUtf8();
        virDomainPtr domain = virDomainCreateXML(connection.handle(), xml.constData(), 0);
        QVERIFY(domain);
        QCOMPARE(virDomainIsActive(domain), 1);

        char* metadata = virDomainGetMetadata(domain, VIR_DOMAIN_METADATA_ELEMENT,
                                              sbw::kMetadataNamespace, 0);
        QVERIFY(metadata);
        const QString stored = QString::fromUtf8(metadata);
        free(metadata);
        QCOMPARE(valueAt(stored, QStringLiteral("sandbox/kind")), QStringLiteral("ephemeral"));
        QCOMPARE(valueAt(stored, QStringLiteral("sandbox/image@hash")), QStringLiteral("0123456789abcdef"));

        QCOMPARE(virDomainDestroy(domain), 0);
        virDomainFree(domain);
        const QByteArray name = spec.name.toUtf8();
        QVERIFY(!virDomainLookupByName(connection.handle(), name.constData()));
    }
};

QTEST_GUILESS_MAIN(TestDomainSpec)
#include "tst_domainspec.moc"
