#pragma once

#include "base/Expected.h"

#include <QByteArrayView>

namespace sbw::save_image {

/// A QEMU domain's save image as libvirt writes it (virDomainSaveFlags): a 92-byte header
/// ("LibvirtQemudSave", version, the XML's length, whether it ran, the stream's compression, a
/// cookie offset, unused words), the domain XML padded, then QEMU's migration stream, which
/// starts with "QEVM". libvirt keeps this layout as ABI (src/qemu/qemu_saveimage.h).
inline constexpr qint64 kHeaderBytes = 92;

/// The offset of the migration stream from the header's first kHeaderBytes bytes. Errors: not
/// a save image, a version other than 1 or 2, a compressed stream (only raw is loaded).
Expected<qint64> streamOffset(QByteArrayView header);

/// Whether `bytes` (at least 4, read at streamOffset()) start QEMU's migration stream.
bool isStreamStart(QByteArrayView bytes);

} // namespace sbw::save_image
