#pragma once

#include "base/Expected.h"

#include <QString>
#include <QStringList>

namespace sbw {

/// A built guest image: the files packaging/guest/build-image.sh writes under
/// `<imagesDir>/<hash>/` and its manifest.json (format: packaging/guest/README.md).
struct GuestImage
{
    QString recipe;      ///< recipe name, e.g. "minimal"
    QString hash;        ///< recipe hash, 16 hex digits: names the cache folder
    /// Names this very build in the storage pool: "<hash>-<8 hex digits of sha256(host key,
    /// build time)>". Two builds of one recipe have the same hash but different host keys, so
    /// the pool must tell them apart.
    QString buildId;
    QString directory;   ///< absolute path of the cache folder
    QString kernel;      ///< absolute path of the kernel (bzImage)
    QString initrd;      ///< absolute path of the initramfs
    QString disk;        ///< absolute path of the root filesystem image
    QString diskFormat;  ///< "qcow2"
    qint64 diskVirtualSize = 0; ///< bytes the guest sees
    QString cmdline;     ///< kernel command line without the per-user key
    QString hostKey;     ///< "ssh-ed25519 AAAA…": the guest sshd's public host key
    QString sshPort;     ///< virtio-serial port name of sshd, "org.sbw.ssh.0": ephemeral runs use it
    /// Every virtio-serial port name the guest serves sshd on, sshPort first; one host SSH
    /// connection each ("org.sbw.ssh.0" … "org.sbw.ssh.3"; images built before there were
    /// several list only sshPort).
    QStringList sshPorts;
    QString agentPort;   ///< virtio-serial port name of qemu-ga, "org.qemu.guest_agent.0"

    /// Reads `<imagesDir>/<recipe>/manifest.json` (the symlink the builder points at the newest
    /// build). Errors: image not built (names the command that builds it), unreadable or
    /// incomplete manifest, missing files.
    static Expected<GuestImage> load(const QString& imagesDir, const QString& recipe);
};

} // namespace sbw
