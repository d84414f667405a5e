#include "network/TlsClientHello.h"

#include "network/NetworkDestination.h"

#include <QByteArray>
#include <algorithm>
#include <optional>

namespace sbw {
namespace {

using Status = ClientHelloSni::Status;

constexpr quint8 kHandshakeRecord = 22;
constexpr quint8 kClientHello = 1;
constexpr quint32 kServerNameExtension = 0;
constexpr quint32 kHostName = 0;
constexpr qsizetype kRecordHeaderSize = 5;
constexpr qsizetype kMaxRecordLength = 1 << 14; // TLSPlaintext.length (RFC 8446 §5.1)
constexpr qsizetype kHandshakeHeaderSize = 4;
constexpr int kRandomSize = 32;
constexpr qsizetype kMaxSessionIdSize = 32;

/// Reads big-endian numbers and length-prefixed vectors from `bytes`. A read past the end
/// fails, returns nothing and leaves the reader failed (ok() false) for every later read.
class Reader
{
public:
    explicit Reader(QByteArrayView bytes) : m_bytes(bytes) {}

    bool ok() const { return m_ok; }
    bool atEnd() const { return m_pos == m_bytes.size(); }

    quint32 number(int width)
    {
        if (!take(width))
            return 0;
        quint32 value = 0;
        for (qsizetype i = m_pos - width; i < m_pos; ++i)
            value = value << 8 | quint8(m_bytes[i]);
        return value;
    }
    QByteArrayView bytes(qsizetype count)
    {
        if (!take(count))
            return {};
        return m_bytes.sliced(m_pos - count, count);
    }
    /// A vector with a `width`-byte length before it (RFC 8446 §3.4).
    QByteArrayView vector(int width)
    {
        const qsizetype count = number(width);
        return m_ok ? bytes(count) : QByteArrayView();
    }

private:
    bool take(qsizetype count)
    {
        if (!m_ok || count < 0 || count > m_bytes.size() - m_pos) {
            m_ok = false;
            return false;
        }
        m_pos += count;
        return true;
    }

    QByteArrayView m_bytes;
    qsizetype m_pos = 0;
    bool m_ok = true;
};

ClientHelloSni result(Status status, const QString& serverName = {})
{
    return ClientHelloSni{status, serverName};
}

/// Incomplete, unless the client already sent all a ClientHello may take.
ClientHelloSni incomplete(QByteArrayView input)
{
    return result(input.size() >= kMaxClientHelloBytes ? Status::Malformed : Status::Incomplete);
}

/// Whether the record header bytes at hand (fewer than five) can still start a handshake
/// record: type 22, version 3.0–3.4.
bool plausibleHeaderStart(QByteArrayView header)
{
    return (header.size() < 1 || quint8(header[0]) == kHandshakeRecord) &&
           (header.size() < 2 || quint8(header[1]) == 3) &&
           (header.size() < 3 || quint8(header[2]) <= 4);
}

/// The server name in a whole ClientHello's body (after the handshake header).
ClientHelloSni parseClientHello(QByteArrayView body)
{
    Reader hello(body);
    const quint32 legacyVersion = hello.number(2);
    hello.bytes(kRandomSize);
    const QByteArrayView sessionId = hello.vector(1);
    const QByteArrayView cipherSuites = hello.vector(2);
    const QByteArrayView compressionMethods = hello.vector(1);
    if (!hello.ok() || legacyVersion >> 8 != 3 || sessionId.size() > kMaxSessionIdSize ||
        cipherSuites.size() < 2 || cipherSuites.size() % 2 != 0 || compressionMethods.isEmpty())
        return result(Status::Malformed);
    if (hello.atEnd()) // TLS 1.0–1.2 may leave the extensions out
        return result(Status::Absent);
    Reader extensions(hello.vector(2));
    if (!hello.ok() || !hello.atEnd())
        return result(Status::Malformed);
    std::optional<QString> serverName;
    bool seenServerName = false;
    while (!extensions.atEnd()) {
        const quint32 type = extensions.number(2);
        const QByteArrayView data = extensions.vector(2);
        if (!extensions.ok())
            return result(Status::Malformed);
        if (type != kServerNameExtension)
            continue;
        if (seenServerName)
            return result(Status::Malformed);
        seenServerName = true;
        Reader extension(data);
        Reader list(extension.vector(2));
        if (!extension.ok() || !extension.atEnd() || list.atEnd())
            return result(Status::Malformed);
        while (!list.atEnd()) {
            const quint32 nameType = list.number(1);
            const QByteArrayView name = list.vector(2);
            if (!list.ok() || nameType != kHostName || serverName || name.isEmpty() ||
                name.back() == '.')
                return result(Status::Malformed);
            // Bytes past ASCII become characters normaliseHost() refuses.
            const auto host = normaliseHost(QString::fromLatin1(name));
            if (!host || NetworkDestination{*host, 0, {}}.isLiteralAddress())
                return result(Status::Malformed);
            serverName = *host;
        }
    }
    return serverName ? result(Status::Found, *serverName) : result(Status::Absent);
}

} // namespace

ClientHelloSni readClientHelloSni(QByteArrayView input)
{
    if (input.isEmpty())
        return result(Status::Incomplete);
    if (quint8(input[0]) != kHandshakeRecord)
        return result(Status::NotTls);
    // The fragments of consecutive handshake records, joined, until the ClientHello is whole.
    QByteArray handshake;
    std::optional<qsizetype> helloSize; // handshake header and body
    qsizetype pos = 0;
    while (!helloSize || handshake.size() < *helloSize) {
        const QByteArrayView rest = input.sliced(pos);
        if (rest.size() < kRecordHeaderSize)
            return plausibleHeaderStart(rest) ? incomplete(input) : result(Status::Malformed);
        Reader header(rest.first(kRecordHeaderSize));
        const quint32 type = header.number(1);
        const quint32 major = header.number(1);
        const quint32 minor = header.number(1);
        const qsizetype length = header.number(2);
        if (type != kHandshakeRecord || major != 3 || minor > 4 || length == 0 ||
            length > kMaxRecordLength)
            return result(Status::Malformed);
        const qsizetype available = std::min(length, rest.size() - kRecordHeaderSize);
        handshake.append(rest.sliced(kRecordHeaderSize, available));
        pos += kRecordHeaderSize + available;
        if (!helloSize && handshake.size() >= kHandshakeHeaderSize) {
            Reader message(handshake);
            const quint32 messageType = message.number(1);
            const qsizetype bodySize = message.number(3);
            if (messageType != kClientHello ||
                kHandshakeHeaderSize + bodySize > kMaxClientHelloBytes)
                return result(Status::Malformed);
            helloSize = kHandshakeHeaderSize + bodySize;
        }
        if (available < length) { // the record goes on past the bytes at hand
            if (helloSize && handshake.size() > *helloSize)
                return result(Status::Malformed); // something after the ClientHello in its record
            return incomplete(input);
        }
    }
    // The ClientHello ends with its record: a client sends nothing else before the server's answer.
    if (handshake.size() != *helloSize)
        return result(Status::Malformed);
    return parseClientHello(QByteArrayView(handshake).sliced(kHandshakeHeaderSize));
}

} // namespace sbw
