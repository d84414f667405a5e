#pragma once

#include <QHostAddress>
#include <QList>
#include <QString>
#include <QStringView>
#include <optional>

namespace sbw {

/// Where a program in a guest asked the egress proxy to connect.
struct NetworkDestination
{
    /// normalised (normaliseHost()): lower-case name without trailing dot, or a literal IP in
    /// canonical text ("127.0.0.1", "::1", no brackets)
    QString host;
    quint16 port = 0;
    /// what `host` resolved to on the host; for a literal IP that IP; empty before resolution
    QList<QHostAddress> addresses;

    /// Whether `host` is an IP address rather than a name.
    bool isLiteralAddress() const;
    QString display() const; ///< "pypi.org:443", "[::1]:8080"
    bool operator==(const NetworkDestination&) const = default;
};

/// `host` as a CONNECT line, an absolute URI or a rule names it: lower-cased, one trailing dot
/// removed, IPv6 brackets removed; nullopt when it is neither a valid DNS name (labels of ASCII
/// letters, digits, hyphen and underscore, 1–63 octets each, at most 253 in all, no empty label;
/// IDNs in their punycode form "xn--…") nor a literal IP.
///
/// Addresses come out in one spelling so that an address rule sees every way of writing them:
/// IPv4 only as four decimal parts without leading zeros ("127.0.0.1"); IPv6 as QHostAddress
/// writes it ("::1"), an IPv4-mapped one as its IPv4 ("::ffff:127.0.0.1" → "127.0.0.1", which
/// is where a dual-stack socket connects). The other spellings inet_aton(3) and browsers take
/// ("0x7f.1", "2130706433", "127.1", "0177.0.0.1") are REJECTED, not canonicalised: a name
/// whose last label is numeric (digits, or 0x and hex digits) is read as an address attempt,
/// so it can never pass as a name that dodges an address rule, and no real client sends them.
/// Zone ids ("fe80::1%eth0") are rejected too.
std::optional<QString> normaliseHost(QStringView host);

/// The special-purpose range `address` is in, named for a person ("loopback", "private",
/// "link-local", "shared address space (CGNAT)", "IPv4-mapped loopback", …): the IANA
/// special-purpose registries for IPv4 and IPv6, the IPv6 space outside global unicast
/// (2000::/3) that is not in them, and the IPv6 forms that embed an IPv4 address of those
/// ranges (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16). nullopt for an
/// ordinary public address. The proxy refuses such destinations unless a rule names them
/// explicitly (Policy::refusedAddress()).
std::optional<QString> specialAddressRange(const QHostAddress& address);

/// The special-purpose range (as above) that holds every address of `network`/`prefixLength`;
/// nullopt when some address of it is ordinary ("0.0.0.0/0", "2000::/3") or the range is not
/// valid.
std::optional<QString> specialRangeHolding(const QHostAddress& network, int prefixLength);

} // namespace sbw
