#include "hypervisor/SaveImage.h"

#include <QtEndian>

namespace sbw::save_image {
namespace {

constexpr QByteArrayView kMagic("LibvirtQemudSave");
constexpr qsizetype kVersionAt = 16;
constexpr qsizetype kXmlLengthAt = 20;
constexpr qsizetype kFormatAt = 28;
constexpr quint32 kRawFormat = 0;

quint32 wordAt(QByteArrayView header, qsizetype at)
{
    // Written in the host's byte order by libvirt on the same kind of host.
    return qFromUnaligned<quint32>(header.data() + at);
}

} // namespace

Expected<qint64> streamOffset(QByteArrayView header)
{
    if (header.size() < kHeaderBytes || !header.startsWith(kMagic))
        return makeError(QStringLiteral("not a libvirt save image"));
    const quint32 version = wordAt(header, kVersionAt);
    if (version != 1 && version != 2)
        return makeError(QStringLiteral("a libvirt save image of version %1, which this workbench cannot load").arg(version));
    if (const quint32 format = wordAt(header, kFormatAt); format != kRawFormat)
        return makeError(QStringLiteral("a compressed libvirt save image (format %1); only raw ones are loaded").arg(format));
    return kHeaderBytes + qint64(wordAt(header, kXmlLengthAt));
}

bool isStreamStart(QByteArrayView bytes)
{
    return bytes.startsWith(QByteArrayView("QEVM"));
}

} // namespace sbw::save_image
