#pragma once

#include "base/Expected.h"

#include <QByteArray>
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

/// The domain XML of `head`, a save image's bytes up to streamOffset(). Errors: as
/// streamOffset(), `head` shorter than that.
Expected<QByteArray> domainXml(QByteArrayView head);

/// `head` (a save image's bytes up to streamOffset()) with `xml` as its domain XML: the same
/// length, so that it can be written over the head of a copy of the image, whose stream stays
/// where it was. Version 2's cookie (the guest CPU libvirt checked) follows the new XML and the
/// header's cookie offset says where. libvirt pads the XML when it saves (at least 1 KiB), so
/// a definition a little longer than the saved one fits. Errors: as domainXml(), `xml` and the
/// cookie longer than the padded space.
Expected<QByteArray> withDomainXml(QByteArrayView head, const QByteArray& xml);

} // namespace sbw::save_image
