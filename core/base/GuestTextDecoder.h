#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringDecoder>

namespace sbw {

/// UTF-8 decoder for one stream of guest output: a character split across chunks is decoded
/// once its last byte arrives, and invalid bytes become U+FFFD, so no byte sequence a guest
/// writes can break a view or lose the bytes around it. It does not escape anything; see
/// VisibleText.h for that.
///
/// It keeps an incomplete trailing sequence itself and decodes the rest statelessly: Qt 6.4's
/// stateful QStringDecoder drops the byte that interrupts a sequence left incomplete at the end
/// of the previous chunk ("\xe2" then "x" decodes to "\uFFFD" without the "x").
class GuestTextDecoder
{
public:
    /// Decodes `bytes`, keeping an incomplete trailing sequence for the next call.
    QString decode(QByteArrayView bytes);

    /// Ends the stream: a sequence left incomplete becomes one U+FFFD. The decoder is then fresh.
    QString finish();

    /// Forgets any incomplete sequence.
    void reset() { m_pending.clear(); }

private:
    QByteArray m_pending; ///< start of a multi-byte sequence cut by the chunk end (≤ 3 bytes)
    // Stateless: each call stands alone. ConvertInitialBom: a BOM is kept (and shown escaped).
    QStringDecoder m_decoder{QStringDecoder::Utf8, QStringDecoder::Flag::Stateless |
                                                       QStringDecoder::Flag::ConvertInitialBom};
};

/// Whether `bytes` are well-formed UTF-8: no invalid, overlong or truncated sequence.
bool isValidUtf8(QByteArrayView bytes);

} // namespace sbw
