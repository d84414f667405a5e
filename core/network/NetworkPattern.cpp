#include "network/NetworkPattern.h"

#include <algorithm>

namespace sbw {
namespace {

/// `address` as the proxy connects to it: without a zone id, an IPv4-mapped IPv6 as its IPv4.
QHostAddress plainAddress(const QHostAddress& address)
{
    QHostAddress plain = address;
    plain.setScopeId({});
    bool mapped = false;
    const quint32 ipv4 = plain.toIPv4Address(&mapped);
    if (mapped && plain.protocol() == QHostAddress::IPv6Protocol)
        return QHostAddress(ipv4);
    return plain;
}

} // namespace

Expected<NetworkPattern> NetworkPattern::parse(const QString& text)
{
    const auto invalid = [&] {
        return makeError(
            QStringLiteral("\"%1\" is not a host name, *.NAME or an address range").arg(text));
    };
    NetworkPattern pattern;
    if (text == u"*") {
        pattern.m_kind = Kind::AnyName;
        pattern.m_text = text;
        return pattern;
    }
    if (text.startsWith(u"*.")) {
        const auto name = normaliseHost(QStringView(text).sliced(2));
        if (!name || NetworkDestination{*name, 0, {}}.isLiteralAddress())
            return invalid();
        pattern.m_kind = Kind::NameSuffix;
        pattern.m_name = *name;
        pattern.m_text = QStringLiteral("*.") + *name;
        return pattern;
    }
    const qsizetype slash = text.indexOf(u'/');
    const auto host = normaliseHost(QStringView(text).left(slash < 0 ? text.size() : slash));
    if (!host)
        return invalid();
    const bool isAddress = NetworkDestination{*host, 0, {}}.isLiteralAddress();
    if (!isAddress && slash < 0) {
        pattern.m_kind = Kind::ExactName;
        pattern.m_name = *host;
        pattern.m_text = *host;
        return pattern;
    }
    if (!isAddress)
        return invalid();
    pattern.m_kind = Kind::Range;
    pattern.m_network = QHostAddress(*host);
    const int maxLength = pattern.m_network.protocol() == QHostAddress::IPv4Protocol ? 32 : 128;
    pattern.m_prefixLength = maxLength;
    pattern.m_text = *host;
    if (slash < 0)
        return pattern;
    const QStringView lengthText = QStringView(text).sliced(slash + 1);
    bool isNumber = !lengthText.isEmpty() && lengthText.size() <= 3 &&
                    std::all_of(lengthText.begin(), lengthText.end(),
                                [](QChar c) { return c >= u'0' && c <= u'9'; });
    const int length = isNumber ? lengthText.toInt() : -1;
    if (length < 0 || length > maxLength)
        return makeError(QStringLiteral("\"%1\": /%2 is not a prefix length (0–%3)")
                             .arg(text, lengthText.toString())
                             .arg(maxLength));
    // A range written with host bits set is a typo or a misunderstanding: say so, do not guess.
    const QPair<QHostAddress, int> masked =
        QHostAddress::parseSubnet(QStringLiteral("%1/%2").arg(*host).arg(length));
    if (masked.first != pattern.m_network)
        return makeError(QStringLiteral("\"%1\": the address has bits set past /%2 (the range "
                                        "starts at %3)")
                             .arg(text)
                             .arg(length)
                             .arg(masked.first.toString()));
    pattern.m_prefixLength = length;
    pattern.m_text = QStringLiteral("%1/%2").arg(*host).arg(length);
    return pattern;
}

bool NetworkPattern::matches(const NetworkDestination& destination) const
{
    const bool literal = destination.isLiteralAddress();
    // A host that is not in its normal form (a caller forgot normaliseHost()) matches nothing:
    // "*" must not take "fe80::1%eth0" or "0x7f.1" for a name.
    const bool name = !literal && normaliseHost(destination.host) == destination.host;
    switch (m_kind) {
    case Kind::AnyName:
        return name;
    case Kind::ExactName:
        return name && destination.host == m_name;
    case Kind::NameSuffix:
        return name && destination.host.endsWith(u'.' + m_name);
    case Kind::Range:
        return literal && QHostAddress(destination.host).isInSubnet(m_network, m_prefixLength);
    }
    return false;
}

bool NetworkPattern::namesExplicitly(const NetworkDestination& destination,
                                     const QHostAddress& address) const
{
    switch (m_kind) {
    case Kind::ExactName:
        return !destination.isLiteralAddress() && destination.host == m_name;
    case Kind::Range:
        return plainAddress(address).isInSubnet(m_network, m_prefixLength) &&
               specialRangeHolding(m_network, m_prefixLength).has_value();
    case Kind::AnyName:
    case Kind::NameSuffix:
        return false;
    }
    return false;
}

} // namespace sbw
