#pragma once

#include "base/Expected.h"

#include <QString>

#include <chrono>

typedef struct _virDomain* virDomainPtr;

namespace sbw {

class StoragePool;

/// Loads a saved domain's memory and device state into a new domain, so that many domains can
/// start from one save image at once, each with its own name and UUID (libvirt's own restore
/// refuses another UUID and a second domain of the same one).
///
/// `domain` must have been started paused (VIR_DOMAIN_START_PAUSED) with QEMU's `-incoming
/// defer` and the saved domain's devices (hypervisor/CloneDomainXml). A file descriptor goes
/// to QEMU through the monitor (getfd, virDomainQemuMonitorCommandWithFiles: local connections
/// only) and QEMU reads the migration stream from it (migrate-incoming): volume `saveVolume`'s
/// file itself, opened at `offset` (save_image::streamOffset()), where this process can open it
/// (110 MB load in about 60 ms under TCG); else one end of a socket pair, which a thread here
/// feeds from the volume through the storage API (about 0.7 s: libvirt's stream copies every
/// byte twice). Returns when QEMU has loaded it and waits paused. Errors: the monitor's answer,
/// QEMU's failed load, the volume unreadable, `deadline` passed. libvirt marks the domain
/// tainted (custom monitor command, custom argv); that is expected.
Expected<void> loadIncomingMigration(virDomainPtr domain, StoragePool& pool, const QString& saveVolume,
                                     qint64 offset, std::chrono::steady_clock::time_point deadline);

} // namespace sbw
