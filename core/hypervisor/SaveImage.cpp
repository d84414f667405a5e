#include "hypervisor/SaveImage.h"

#include <QtEndian>

namespace sbw::save_image {
namespace {

constexpr QByteArrayView kMagic("LibvirtQemudSave");
constexpr qsizetype kVersionAt = 16;
constexpr qsizetype kXmlLengthAt = 20;
constexpr qsizetype kFormatAt = 28;
constexpr qsizetype kCookieOffsetAt = 32; // version 2: from the XML's start
constexpr quint32 kCookieVersion = 2;
constexpr quint32 kRawFormat = 0;

quint32 wordAt(QByteArrayView header, qsizetype at)
{
    // Written in the host's byte order by libvirt on the same kind of host.
    return qFromUnaligned<quint32>(header.data() + at);
}

quint32 version(QByteArrayView header) { return wordAt(header, kVersionAt); }

/// The NUL-terminated text at `at` of `data`, without the NUL; the rest of `data` if none.
QByteArray textAt(QByteArrayView data, qsizetype at)
{
    const QByteArrayView rest = data.sliced(std::min(at, data.size()));
    const qsizetype end = rest.indexOf('\0');
    return (end < 0 ? rest : rest.first(end)).toByteArray();
}

Expected<QByteArrayView> dataOf(QByteArrayView head)
{
    auto offset = streamOffset(head);
    if (!offset)
        return offset.error();
    if (head.size() < offset.value())
        return makeError(QStringLiteral("the save image's head is cut short"));
    return head.sliced(kHeaderBytes, offset.value() - kHeaderBytes);
}

} // namespace

Expected<qint64> streamOffset(QByteArrayView header)
{
    if (header.size() < kHeaderBytes || !header.startsWith(kMagic))
        return makeError(QStringLiteral("not a libvirt save image"));
    if (const quint32 v = version(header); v != 1 && v != kCookieVersion)
        return makeError(QStringLiteral("a libvirt save image of version %1, which this workbench cannot load").arg(v));
    if (const quint32 format = wordAt(header, kFormatAt); format != kRawFormat)
        return makeError(QStringLiteral("a compressed libvirt save image (format %1); only raw ones are loaded").arg(format));
    return kHeaderBytes + qint64(wordAt(header, kXmlLengthAt));
}

bool isStreamStart(QByteArrayView bytes)
{
    return bytes.startsWith(QByteArrayView("QEVM"));
}

Expected<QByteArray> domainXml(QByteArrayView head)
{
    auto data = dataOf(head);
    if (!data)
        return data.error();
    return textAt(data.value(), 0);
}

Expected<QByteArray> withDomainXml(QByteArrayView head, const QByteArray& xml)
{
    auto data = dataOf(head);
    if (!data)
        return data.error();
    QByteArray out = head.first(kHeaderBytes).toByteArray();
    QByteArray newData = xml + '\0';
    if (version(head) == kCookieVersion) {
        const quint32 cookieAt = quint32(newData.size());
        newData += textAt(data.value(), qsizetype(wordAt(head, kCookieOffsetAt))) + '\0';
        qToUnaligned(cookieAt, out.data() + kCookieOffsetAt);
    }
    if (newData.size() > data->size())
        return makeError(QStringLiteral("the new domain XML (%1 bytes) does not fit in the save image (%2 bytes for it)")
                             .arg(xml.size())
                             .arg(data->size()));
    newData.resize(data->size(), '\0');
    return out + newData;
}

} // namespace sbw::save_image
