#include "hypervisor/DomainSpec.h"

#include <QXmlStreamWriter>

namespace sbw {
namespace {

void writeTextElement(QXmlStreamWriter& xml, const char* name, const QString& text)
{
    xml.writeTextElement(QLatin1String(name), text);
}

/// Slots on the q35 root bus (pcie.0) for the virtio devices. Devices without an address would
/// each get a pcie-root-port of their own from libvirt; the guest kernel's set-up of those
/// ports cost 0.4-0.5 s of every boot under TCG (raw QEMU boots of the same image with and
/// without them, packaging/guest/boot-raw.sh). On the root bus they are integrated endpoints,
/// as on `qemu-system-x86_64 -machine q35 -device virtio-…-pci`. Nothing is hot-plugged.
enum RootBusSlot : int {
    kSlotVirtioSerial = 0x02,
    kSlotDisk = 0x03,
    kSlotBalloon = 0x04,
    kSlotRng = 0x05,
    kSlotNetwork = 0x06,
};

void writeRootBusAddress(QXmlStreamWriter& xml, RootBusSlot slot)
{
    xml.writeEmptyElement(QStringLiteral("address"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("pci"));
    xml.writeAttribute(QStringLiteral("domain"), QStringLiteral("0x0000"));
    xml.writeAttribute(QStringLiteral("bus"), QStringLiteral("0x00"));
    xml.writeAttribute(QStringLiteral("slot"), QStringLiteral("0x%1").arg(int(slot), 2, 16, QLatin1Char('0')));
    xml.writeAttribute(QStringLiteral("function"), QStringLiteral("0x0"));
}

void writeChannel(QXmlStreamWriter& xml, const QString& portName)
{
    xml.writeStartElement(QStringLiteral("channel"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("unix"));
    xml.writeEmptyElement(QStringLiteral("source"));
    xml.writeAttribute(QStringLiteral("mode"), QStringLiteral("bind"));
    xml.writeEmptyElement(QStringLiteral("target"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("virtio"));
    xml.writeAttribute(QStringLiteral("name"), portName);
    xml.writeEndElement();
}

void writeMetadata(QXmlStreamWriter& xml, const DomainSpec& spec)
{
    const QString ns = QLatin1String(kMetadataNamespace);
    xml.writeStartElement(QStringLiteral("metadata"));
    xml.writeNamespace(ns, QLatin1String(kMetadataPrefix));
    xml.writeStartElement(ns, QStringLiteral("sandbox"));
    xml.writeTextElement(ns, QStringLiteral("kind"), kindName(spec.kind));
    xml.writeStartElement(ns, QStringLiteral("image"));
    xml.writeAttribute(QStringLiteral("recipe"), spec.imageRecipe);
    xml.writeAttribute(QStringLiteral("hash"), spec.imageHash);
    if (spec.kind == DomainSpec::Kind::Workspace)
        xml.writeAttribute(QStringLiteral("build-id"), spec.imageBuildId);
    xml.writeEndElement();
    xml.writeTextElement(ns, QStringLiteral("created"),
                         spec.created.toUTC().toString(Qt::ISODateWithMs));
    xml.writeTextElement(ns, QStringLiteral("overlay"), spec.disk);
    if (spec.kind == DomainSpec::Kind::Workspace) {
        xml.writeTextElement(ns, QStringLiteral("name"), spec.workspaceName);
        xml.writeEmptyElement(ns, QStringLiteral("ssh"));
        xml.writeAttribute(QStringLiteral("port"), spec.sshPort);
        xml.writeAttribute(QStringLiteral("host-key"), spec.hostKey);
        xml.writeEmptyElement(ns, QStringLiteral("settings"));
        xml.writeAttribute(QStringLiteral("vcpus"), QString::number(spec.vcpus));
        xml.writeAttribute(QStringLiteral("memory-mib"), QString::number(spec.memoryMiB));
        xml.writeAttribute(QStringLiteral("disk-gib"), QString::number(spec.diskGiB));
        xml.writeAttribute(QStringLiteral("cpu-share"), QString::number(spec.cpuSharePercent));
        xml.writeAttribute(QStringLiteral("network"),
                           !spec.networkMode.isEmpty() ? spec.networkMode
                           : spec.natNetwork           ? QStringLiteral("nat")
                                                       : QStringLiteral("none"));
    }
    xml.writeEndElement();
    xml.writeEndElement();
}

void writeDevices(QXmlStreamWriter& xml, const DomainSpec& spec)
{
    xml.writeStartElement(QStringLiteral("devices"));

    xml.writeStartElement(QStringLiteral("disk"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("file"));
    xml.writeAttribute(QStringLiteral("device"), QStringLiteral("disk"));
    xml.writeEmptyElement(QStringLiteral("driver"));
    xml.writeAttribute(QStringLiteral("name"), QStringLiteral("qemu"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("qcow2"));
    xml.writeAttribute(QStringLiteral("discard"), QStringLiteral("unmap"));
    // An ephemeral run's overlay is deleted with its domain: nothing it holds must survive a
    // host crash, so the guest's flushes need not reach the host's disk (no fdatasync per
    // ext4 journal commit). A workspace keeps the default, which honours them.
    if (spec.kind == DomainSpec::Kind::Ephemeral)
        xml.writeAttribute(QStringLiteral("cache"), QStringLiteral("unsafe"));
    xml.writeEmptyElement(QStringLiteral("source"));
    xml.writeAttribute(QStringLiteral("file"), spec.disk);
    xml.writeEmptyElement(QStringLiteral("target"));
    xml.writeAttribute(QStringLiteral("dev"), QStringLiteral("vda"));
    xml.writeAttribute(QStringLiteral("bus"), QStringLiteral("virtio"));
    writeRootBusAddress(xml, kSlotDisk);
    xml.writeEndElement();

    xml.writeStartElement(QStringLiteral("serial"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("pty"));
    if (!spec.consoleLog.isEmpty()) {
        xml.writeEmptyElement(QStringLiteral("log"));
        xml.writeAttribute(QStringLiteral("file"), spec.consoleLog);
        xml.writeAttribute(QStringLiteral("append"), QStringLiteral("off"));
    }
    xml.writeEmptyElement(QStringLiteral("target"));
    xml.writeAttribute(QStringLiteral("port"), QStringLiteral("0"));
    xml.writeEndElement();
    xml.writeStartElement(QStringLiteral("console"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("pty"));
    xml.writeEmptyElement(QStringLiteral("target"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("serial"));
    xml.writeAttribute(QStringLiteral("port"), QStringLiteral("0"));
    xml.writeEndElement();

    xml.writeStartElement(QStringLiteral("controller"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("virtio-serial"));
    xml.writeAttribute(QStringLiteral("index"), QStringLiteral("0"));
    writeRootBusAddress(xml, kSlotVirtioSerial);
    xml.writeEndElement();
    writeChannel(xml, spec.agentPort);
    writeChannel(xml, spec.sshPort);
    for (const QString& port : spec.extraSshPorts)
        writeChannel(xml, port);

    if (spec.natNetwork) {
        // QEMU's user-mode network: no bridge, no dnsmasq, no firewall rules on the host. The
        // guest's addresses are fixed to it (packaging/guest/initramfs-init).
        xml.writeStartElement(QStringLiteral("interface"));
        xml.writeAttribute(QStringLiteral("type"), QStringLiteral("user"));
        xml.writeEmptyElement(QStringLiteral("ip"));
        xml.writeAttribute(QStringLiteral("family"), QStringLiteral("ipv4"));
        xml.writeAttribute(QStringLiteral("address"), QStringLiteral("10.0.2.0"));
        xml.writeAttribute(QStringLiteral("prefix"), QStringLiteral("24"));
        xml.writeEmptyElement(QStringLiteral("model"));
        xml.writeAttribute(QStringLiteral("type"), QStringLiteral("virtio"));
        xml.writeEmptyElement(QStringLiteral("rom"));
        xml.writeAttribute(QStringLiteral("enabled"), QStringLiteral("no")); // direct kernel boot
        writeRootBusAddress(xml, kSlotNetwork);
        xml.writeEndElement();
    }

    xml.writeEmptyElement(QStringLiteral("controller"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("usb"));
    xml.writeAttribute(QStringLiteral("model"), QStringLiteral("none"));

    // Free page reporting: the guest hands pages it freed (2 MiB blocks and up) back to the
    // host, so a sandbox holds what its guest uses rather than everything it ever touched, and
    // a saved ready state carries no freed pages (they read as zero and are skipped).
    xml.writeStartElement(QStringLiteral("memballoon"));
    xml.writeAttribute(QStringLiteral("model"), QStringLiteral("virtio"));
    xml.writeAttribute(QStringLiteral("freePageReporting"), QStringLiteral("on"));
    xml.writeEmptyElement(QStringLiteral("stats"));
    xml.writeAttribute(QStringLiteral("period"), QStringLiteral("1"));
    writeRootBusAddress(xml, kSlotBalloon);
    xml.writeEndElement();

    // Entropy from the host: without it the guest kernel's random pool is ready only about
    // 1.5 s after the guest's init starts under TCG (the emulated CPU has no RDRAND), and sshd
    // blocks in getrandom() until then. virt-manager gives new guests the same device.
    xml.writeStartElement(QStringLiteral("rng"));
    xml.writeAttribute(QStringLiteral("model"), QStringLiteral("virtio"));
    xml.writeStartElement(QStringLiteral("backend"));
    xml.writeAttribute(QStringLiteral("model"), QStringLiteral("random"));
    xml.writeCharacters(QStringLiteral("/dev/urandom"));
    xml.writeEndElement();
    writeRootBusAddress(xml, kSlotRng);
    xml.writeEndElement();

    xml.writeEndElement(); // devices
}

} // namespace

QString kindName(DomainSpec::Kind kind)
{
    return kind == DomainSpec::Kind::Ephemeral ? QStringLiteral("ephemeral")
                                               : QStringLiteral("workspace");
}

QString domainXml(const DomainSpec& spec)
{
    QString out;
    QXmlStreamWriter xml(&out);
    xml.setAutoFormatting(true);
    xml.setAutoFormattingIndent(2);

    xml.writeStartElement(QStringLiteral("domain"));
    xml.writeAttribute(QStringLiteral("type"), spec.kvm ? QStringLiteral("kvm") : QStringLiteral("qemu"));
    writeTextElement(xml, "name", spec.name);
    writeTextElement(xml, "uuid", spec.uuid);
    writeTextElement(xml, "title",
                     spec.kind == DomainSpec::Kind::Ephemeral
                         ? QStringLiteral("Sandbox Workbench ephemeral run")
                         : QStringLiteral("Sandbox Workbench workspace"));
    writeMetadata(xml, spec);

    xml.writeStartElement(QStringLiteral("memory"));
    xml.writeAttribute(QStringLiteral("unit"), QStringLiteral("MiB"));
    xml.writeCharacters(QString::number(spec.memoryMiB));
    xml.writeEndElement();
    writeTextElement(xml, "vcpu", QString::number(spec.vcpus));
    if (spec.cpuSharePercent > 0) {
        // global_* bounds the vCPU threads together; plain <quota> would be per vCPU.
        constexpr int kPeriodUs = 100000;
        xml.writeStartElement(QStringLiteral("cputune"));
        writeTextElement(xml, "global_period", QString::number(kPeriodUs));
        writeTextElement(xml, "global_quota", QString::number(qint64(kPeriodUs) * spec.cpuSharePercent / 100));
        xml.writeEndElement();
    }

    xml.writeStartElement(QStringLiteral("os"));
    xml.writeStartElement(QStringLiteral("type"));
    xml.writeAttribute(QStringLiteral("arch"), QStringLiteral("x86_64"));
    xml.writeAttribute(QStringLiteral("machine"), QStringLiteral("q35"));
    xml.writeCharacters(QStringLiteral("hvm"));
    xml.writeEndElement();
    writeTextElement(xml, "kernel", spec.kernel);
    writeTextElement(xml, "initrd", spec.initrd);
    // TCG only: no address-space randomisation in the guest. QEMU 7.2's TCG finds a translated
    // block by its guest virtual address, so with randomised maps every process translates
    // python3 and its libraries anew; with fixed maps it reuses the blocks of the last one
    // (python3 -c pass: 0.25-0.48 s -> 0.14-0.23 s warm, 0.8-1.3 s -> 0.7 s first; ARCHITECTURE.md).
    writeTextElement(xml, "cmdline", spec.kvm ? spec.cmdline : spec.cmdline + QLatin1String(" norandmaps"));
    xml.writeEndElement();

    xml.writeStartElement(QStringLiteral("features"));
    xml.writeEmptyElement(QStringLiteral("acpi"));
    if (!spec.kvm) {
        xml.writeStartElement(QStringLiteral("tcg"));
        xml.writeStartElement(QStringLiteral("tb-cache"));
        xml.writeAttribute(QStringLiteral("unit"), QStringLiteral("MiB"));
        xml.writeCharacters(QString::number(spec.tbCacheMiB));
        xml.writeEndElement();
        xml.writeEndElement();
    }
    xml.writeEndElement();

    if (spec.kvm) {
        xml.writeEmptyElement(QStringLiteral("cpu"));
        xml.writeAttribute(QStringLiteral("mode"), QStringLiteral("host-passthrough"));
    }
    xml.writeEmptyElement(QStringLiteral("clock"));
    xml.writeAttribute(QStringLiteral("offset"), QStringLiteral("utc"));
    writeTextElement(xml, "on_poweroff", QStringLiteral("destroy"));
    writeTextElement(xml, "on_reboot", QStringLiteral("destroy"));
    writeTextElement(xml, "on_crash", QStringLiteral("destroy"));

    writeDevices(xml, spec);
    xml.writeEndElement(); // domain
    return out;
}

} // namespace sbw
