#pragma once

#include "base/Expected.h"
#include "network/NetworkDestination.h"

#include <QHostAddress>
#include <QString>

namespace sbw {

/// The destinations a network rule names: a host name, the names under a domain, every name,
/// or a range of addresses.
///
/// Names and addresses never match each other: a name pattern matches only destinations given
/// by name, a range only destinations given as a literal address. A name is not matched by a
/// range even when it resolves into it, because rules decide before anything is resolved (a
/// denied name is never looked up); where a name resolves is checked afterwards, by
/// namesExplicitly() (Policy::refusedAddress()).
class NetworkPattern
{
public:
    /// "pypi.org" (that name only), "*.github.com" (any name ending in ".github.com", one or
    /// more labels, NOT github.com itself), "*" (every name, never a literal IP), "10.0.0.0/8",
    /// "fd00::/8", "127.0.0.1" or "::1" (a single address, /32 or /128). Names and addresses
    /// are normalised (normaliseHost()); a range's address must have no bits set past its
    /// prefix. Errors say what is wrong: "\"*.\" is not a host name, *.NAME or an address
    /// range".
    static Expected<NetworkPattern> parse(const QString& text);

    /// Whether `destination` is one this pattern names (see the class comment). A host not in
    /// its normal form (normaliseHost()) matches no pattern.
    bool matches(const NetworkDestination& destination) const;
    bool isRange() const { return m_kind == Kind::Range; }
    /// Whether this pattern names `address` of `destination` explicitly enough to reach a
    /// special range (specialAddressRange()): an exact name pattern equal to destination.host,
    /// or a range containing `address` that itself lies inside one special-purpose range (so
    /// "0.0.0.0/0" or "*" never count).
    bool namesExplicitly(const NetworkDestination& destination, const QHostAddress& address) const;
    QString text() const
    {
        return m_text;
    } ///< as written (normalised): "*.github.com", "10.0.0.0/8"

    bool operator==(const NetworkPattern&) const = default;

private:
    enum class Kind
    {
        AnyName,    ///< "*"
        ExactName,  ///< "pypi.org"
        NameSuffix, ///< "*.github.com"
        Range,      ///< "10.0.0.0/8", "::1"
    };
    NetworkPattern() = default;

    Kind m_kind = Kind::AnyName;
    QString m_text;
    QString m_name;         ///< ExactName: the name; NameSuffix: the name after "*."
    QHostAddress m_network; ///< Range: its first address
    int m_prefixLength = 0; ///< Range
};

} // namespace sbw
