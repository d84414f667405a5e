#pragma once

#include <QByteArrayView>
#include <QString>

namespace sbw {

/// The server name a TLS client asked for, read by readClientHelloSni().
struct ClientHelloSni
{
    enum class Status
    {
        Incomplete, ///< more bytes are needed
        NotTls,     ///< the first byte is not a TLS handshake record (plain HTTP, SSH …)
        Malformed,  ///< not a ClientHello the proxy can trust (readClientHelloSni())
        Found,      ///< a well-formed ClientHello with one host_name
        Absent,     ///< a well-formed ClientHello without server_name
    };
    Status status = Status::Incomplete;
    QString serverName; ///< Found: the host_name entry, lower-cased (normaliseHost())

    bool operator==(const ClientHelloSni&) const = default;
};

/// How many bytes a ClientHello may take, records included, before it is Malformed. Real ones
/// take a few hundred bytes to about 2 KiB (post-quantum key shares).
inline constexpr qsizetype kMaxClientHelloBytes = 64 * 1024;

/// Reads the server_name extension (RFC 6066 §3) from the first bytes a TLS client sends on a
/// connection: one ClientHello (RFC 8446 §4.1.2; TLS 1.0–1.3 record framing, record versions
/// 3.0–3.4), possibly fragmented over several consecutive handshake records. Whatever follows
/// the ClientHello (early data) is not read. The whole ClientHello is checked before Found or
/// Absent.
///
/// Incomplete: more bytes are needed (never more than kMaxClientHelloBytes in all; beyond
/// that: Malformed). NotTls: the first byte is not a handshake record. Malformed: any length
/// that runs past its container or leaves bytes over in it, an empty record, a record of
/// another type before the ClientHello ends, a handshake message that is not a ClientHello,
/// duplicate server_name extensions, a host_name that is not a valid DNS name (normaliseHost())
/// or has a trailing dot, or is an IP literal (RFC 6066 forbids both), more than one
/// host_name, an entry of another name type (none is defined; OpenSSL refuses them too), an
/// empty server name list, a ClientHello that does not end with its record.
ClientHelloSni readClientHelloSni(QByteArrayView firstBytes);

} // namespace sbw
