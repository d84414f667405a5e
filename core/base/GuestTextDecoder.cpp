#include "base/GuestTextDecoder.h"

namespace sbw {
namespace {

/// Length of the UTF-8 sequence a lead byte starts; 0 for bytes that cannot start a
/// multi-byte sequence (ASCII, continuation bytes, 0xC0, 0xC1, 0xF5–0xFF).
int sequenceLength(unsigned char byte)
{
    if (byte >= 0xc2 && byte <= 0xdf)
        return 2;
    if (byte >= 0xe0 && byte <= 0xef)
        return 3;
    if (byte >= 0xf0 && byte <= 0xf4)
        return 4;
    return 0;
}

/// Where an incomplete multi-byte sequence at the end of `data` starts, or data.size().
qsizetype incompleteTail(QByteArrayView data)
{
    qsizetype start = data.size();
    while (start > 0 && data.size() - start < 3 && (uchar(data[start - 1]) & 0xc0) == 0x80)
        --start;
    if (start == 0)
        return data.size();
    const qsizetype lead = start - 1;
    const int length = sequenceLength(uchar(data[lead]));
    return length > data.size() - lead ? lead : data.size();
}

} // namespace

QString GuestTextDecoder::decode(QByteArrayView bytes)
{
    QByteArray joined;
    QByteArrayView data = bytes;
    if (!m_pending.isEmpty()) {
        joined = m_pending;
        joined.append(bytes);
        data = joined;
    }
    const qsizetype cut = incompleteTail(data);
    QString text = m_decoder.decode(data.first(cut));
    m_pending = data.sliced(cut).toByteArray();
    return text;
}

QString GuestTextDecoder::finish()
{
    // The pending bytes are the start of one valid sequence: one maximal subpart, so one
    // U+FFFD (the Unicode Standard's "substitution of maximal subparts", chapter 3).
    const QString text = m_pending.isEmpty() ? QString() : QString(QChar::ReplacementCharacter);
    m_pending.clear();
    return text;
}

bool isValidUtf8(QByteArrayView bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decoder.decode(bytes); // decode() is lazy: converting to QString decodes
    return !decoder.hasError();
}

} // namespace sbw
