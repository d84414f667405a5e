#pragma once

#include "base/Expected.h"

#include <QDateTime>
#include <QString>

namespace sbw {

/// What makes a sandbox restored from a saved state its own domain.
struct CloneIdentity
{
    QString name;    ///< domain name, "sbw-run-…"
    QString uuid;    ///< a new UUID
    QString overlay; ///< path of its overlay volume (over the state's overlay)
    QDateTime created; ///< UTC
    /// When valid, a RunLease held until then is in the definition's metadata from the start,
    /// so that a workbench killed while libvirt restores it leaves no domain without a lease.
    QDateTime leaseUntil;
};

/// How a clone's domain gets the saved memory.
enum class CloneLoad
{
    IncomingDefer, ///< started with QEMU's `-incoming defer`, fed by loadIncomingMigration()
    SaveImage,     ///< written into a copy of the save image, which virDomainRestoreFlags loads
};

/// The definition of a clone of a saved sandbox: `savedXml` (the state's saved definition)
/// with the clone's name, UUID, disk vda and the workbench metadata's overlay and creation
/// time, its lease (when it has one); for CloneLoad::IncomingDefer also QEMU's `-incoming defer` (a <qemu:commandline>), so
/// that the domain starts waiting for the saved memory. Everything else stays byte for byte:
/// devices and their addresses, memory, vCPUs, the kernel command line the saved guest booted
/// with. Errors: not a domain XML, no disk vda.
Expected<QString> cloneDomainXml(const QString& savedXml, const CloneIdentity& clone, CloneLoad load);

} // namespace sbw
