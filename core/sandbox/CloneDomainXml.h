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
};

/// The definition of a clone of a saved sandbox: `savedXml` (virDomainSaveImageGetXMLDesc of the
/// state) with the clone's name, UUID, disk vda and the workbench metadata's overlay and
/// creation time, and QEMU's `-incoming defer` (a <qemu:commandline>), so that the domain starts
/// waiting for the saved memory (loadIncomingMigration()). Everything else stays byte for byte:
/// devices and their addresses, memory, vCPUs, the kernel command line the saved guest booted
/// with. Errors: not a domain XML, no disk vda.
Expected<QString> cloneDomainXml(const QString& savedXml, const CloneIdentity& clone);

} // namespace sbw
