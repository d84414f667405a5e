#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

namespace sbw {

/// XML namespace of the workbench's <metadata> element in every domain it creates. Domains
/// without it are never touched.
inline constexpr char kMetadataNamespace[] = "https://sandbox-workbench.dev/xmlns/sandbox/1";
inline constexpr char kMetadataPrefix[] = "sbw";

/// Everything needed to write the libvirt domain XML of a sandbox.
struct DomainSpec
{
    enum class Kind
    {
        Ephemeral, ///< one run, destroyed afterwards
        Workspace  ///< persistent, named
    };

    QString name;           ///< libvirt domain name, e.g. "sbw-run-20261129-101500-3f2a"
    QString uuid;           ///< RFC 4122 text form
    Kind kind = Kind::Ephemeral;
    bool kvm = false;       ///< domain type 'kvm' (else 'qemu', i.e. TCG)
    int memoryMiB = 512;    ///< guest RAM in MiB
    int vcpus = 1;
    int tbCacheMiB = 64;    ///< TCG translation cache bound in MiB (TCG only)
    /// CPU share in percent of one host core for all vCPUs together (cputune global_quota per
    /// 100 ms global_period, enforced by the host's cgroup); 0 = unlimited.
    int cpuSharePercent = 0;
    QString kernel;         ///< path of the kernel as QEMU sees it
    QString initrd;         ///< path of the initramfs as QEMU sees it
    QString cmdline;        ///< kernel command line (TCG domains get " norandmaps" appended)
    QString disk;           ///< path of the qcow2 overlay (vda)
    QString sshPort;        ///< virtio-serial port name for sshd
    QStringList extraSshPorts; ///< further sshd ports, one per further host connection (workspaces)
    QString agentPort;      ///< virtio-serial port name for qemu-ga
    /// File virtlogd (on the daemon's host) logs the serial console's output to, afresh at each
    /// start of the domain (append off); empty for none. See ConsoleLog.
    QString consoleLog;
    QString imageRecipe;    ///< recorded in metadata
    QString imageHash;      ///< recorded in metadata
    QDateTime created;      ///< recorded in metadata (UTC)

    // Workspaces only (Kind::Workspace): the persistent flavour, defined with virDomainDefineXML.
    QString workspaceName;  ///< the user's name, recorded in metadata
    QString imageBuildId;   ///< GuestImage::buildId, recorded in metadata
    int diskGiB = 0;        ///< overlay virtual size, recorded in metadata
    QString hostKey;        ///< the guest sshd's public host key, recorded in metadata
    /// A virtio NIC on QEMU's user-mode network 10.0.2.0/24 (outgoing IPv4 NAT, DNS at 10.0.2.3)
    bool natNetwork = false;
    /// The workspace's network mode as its metadata records it ("none", "nat", "allowlist");
    /// empty: "nat" or "none" from natNetwork. Only natNetwork adds an interface.
    QString networkMode;
};

/// Writes the domain XML: q35, direct kernel boot, virtio-blk overlay, serial console on a PTY
/// (logged to consoleLog when set), qemu-ga and SSH virtio-serial channels (unix sockets, paths
/// chosen by libvirt), virtio balloon with 1 s statistics, no network interface (unless
/// natNetwork), no USB or graphics, the TCG translation-cache bound for TCG domains, and the
/// workbench's <metadata>. Workspace metadata also has <name>, the image's build-id attribute,
/// <ssh port host-key> and <settings vcpus memory-mib disk-gib cpu-share network>.
QString domainXml(const DomainSpec& spec);

/// "ephemeral" / "workspace", as stored in metadata.
QString kindName(DomainSpec::Kind kind);

} // namespace sbw
