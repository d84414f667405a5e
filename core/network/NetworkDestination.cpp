#include "network/NetworkDestination.h"

#include <algorithm>
#include <array>
#include <vector>

namespace sbw {
namespace {

constexpr qsizetype kMaxNameLength = 253;
constexpr qsizetype kMaxLabelLength = 63;

bool isDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}
bool isHexDigit(QChar c)
{
    return isDigit(c) || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
}

/// Whether inet_aton(3) or a URL parser would read `label` as a number: digits, or "0x" and hex
/// digits (lower-cased before).
bool isNumericLabel(QStringView label)
{
    if (label.startsWith(u"0x"))
        return std::all_of(label.begin() + 2, label.end(), isHexDigit);
    return !label.isEmpty() && std::all_of(label.begin(), label.end(), isDigit);
}

/// "a.b.c.d": four decimal parts 0–255 without leading zeros (which inet_aton reads as octal).
std::optional<QString> strictIpv4(QStringView text)
{
    const QList<QStringView> parts = text.split(u'.');
    if (parts.size() != 4)
        return std::nullopt;
    for (QStringView part : parts) {
        if (part.isEmpty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), isDigit) ||
            (part.size() > 1 && part.front() == u'0') || part.toInt() > 255)
            return std::nullopt;
    }
    return text.toString();
}

/// An IPv6 literal in QHostAddress's spelling; an IPv4-mapped one as its IPv4.
std::optional<QString> ipv6Text(QStringView text)
{
    // QHostAddress trims white space and takes zone ids: only the characters of an address pass.
    const bool addressCharacters = std::all_of(
        text.begin(), text.end(), [](QChar c) { return isHexDigit(c) || c == u':' || c == u'.'; });
    QHostAddress address;
    if (!addressCharacters || !address.setAddress(text.toString()) ||
        address.protocol() != QHostAddress::IPv6Protocol)
        return std::nullopt;
    const Q_IPV6ADDR bytes = address.toIPv6Address();
    const bool mapped = std::all_of(bytes.c, bytes.c + 10, [](quint8 b) { return b == 0; }) &&
                        bytes.c[10] == 0xff && bytes.c[11] == 0xff;
    if (mapped)
        return QHostAddress(quint32(bytes.c[12]) << 24 | quint32(bytes.c[13]) << 16 |
                            quint32(bytes.c[14]) << 8 | bytes.c[15])
            .toString();
    return address.toString();
}

/// How a special-purpose IPv6 block carries an IPv4 address whose range decides.
enum class Embedding
{
    None,
    Low32,     ///< the last 32 bits (IPv4-mapped, IPv4-compatible, NAT64)
    SixToFour, ///< bits 16–47 (2002:V4ADDR::/48)
};

struct Block
{
    const char* network;
    int prefix;
    const char* name;
    Embedding embedding = Embedding::None;
    /// Embedding blocks: whether the block is special whatever the address it embeds.
    bool specialAnyway = false;
};

// First match wins: narrower blocks before the blocks that hold them.
constexpr std::array kIpv4Blocks{
    Block{"0.0.0.0", 32, "unspecified"},
    Block{"0.0.0.0", 8, "this network"},
    Block{"10.0.0.0", 8, "private"},
    Block{"100.64.0.0", 10, "shared address space (CGNAT)"},
    Block{"127.0.0.0", 8, "loopback"},
    Block{"169.254.0.0", 16, "link-local"},
    Block{"172.16.0.0", 12, "private"},
    Block{"192.0.0.0", 24, "IETF protocol assignments"},
    Block{"192.0.2.0", 24, "documentation (TEST-NET-1)"},
    Block{"192.88.99.0", 24, "6to4 relay anycast"},
    Block{"192.168.0.0", 16, "private"},
    Block{"198.18.0.0", 15, "benchmarking"},
    Block{"198.51.100.0", 24, "documentation (TEST-NET-2)"},
    Block{"203.0.113.0", 24, "documentation (TEST-NET-3)"},
    Block{"224.0.0.0", 4, "multicast"},
    Block{"255.255.255.255", 32, "broadcast"},
    Block{"240.0.0.0", 4, "reserved"},
};

constexpr std::array kIpv6Blocks{
    Block{"::", 128, "unspecified"},
    Block{"::1", 128, "loopback"},
    // A public IPv4 behind ::ffff: or NAT64 is that public address; behind :: it is deprecated.
    Block{"::ffff:0:0", 96, "IPv4-mapped", Embedding::Low32},
    Block{"::", 96, "IPv4-compatible", Embedding::Low32, true},
    Block{"64:ff9b::", 96, "NAT64", Embedding::Low32},
    Block{"64:ff9b:1::", 48, "local-use NAT64"},
    Block{"100::", 64, "discard-only"},
    Block{"2001::", 32, "Teredo"},
    Block{"2001:db8::", 32, "documentation"},
    Block{"2001::", 23, "IETF protocol assignments"},
    Block{"2002::", 16, "6to4", Embedding::SixToFour},
    Block{"3fff::", 20, "documentation"},
    Block{"5f00::", 16, "segment routing (SRv6)"},
    Block{"fc00::", 7, "unique local"},
    Block{"fe80::", 10, "link-local"},
    Block{"fec0::", 10, "site-local (deprecated)"},
    Block{"ff00::", 8, "multicast"},
    // The rest of the space outside global unicast (2000::/3) is reserved by the IETF.
    Block{"::", 8, "reserved"},
    Block{"100::", 8, "reserved"},
    Block{"200::", 7, "reserved"},
    Block{"400::", 6, "reserved"},
    Block{"800::", 5, "reserved"},
    Block{"1000::", 4, "reserved"},
    Block{"4000::", 2, "reserved"},
    Block{"8000::", 2, "reserved"},
    Block{"c000::", 3, "reserved"},
    Block{"e000::", 4, "reserved"},
    Block{"f000::", 5, "reserved"},
    Block{"f800::", 6, "reserved"},
    Block{"fe00::", 9, "reserved"},
};

struct ParsedBlock
{
    QHostAddress network;
    Block block;
};

template <std::size_t N> std::vector<ParsedBlock> parsed(const std::array<Block, N>& blocks)
{
    std::vector<ParsedBlock> result;
    for (const Block& block : blocks)
        result.push_back({QHostAddress(QLatin1String(block.network)), block});
    return result;
}

quint32 ipv4At(const Q_IPV6ADDR& bytes, int offset)
{
    return quint32(bytes.c[offset]) << 24 | quint32(bytes.c[offset + 1]) << 16 |
           quint32(bytes.c[offset + 2]) << 8 | bytes.c[offset + 3];
}

} // namespace

bool NetworkDestination::isLiteralAddress() const
{
    return host.contains(u':') ? ipv6Text(host).has_value() : strictIpv4(host).has_value();
}

QString NetworkDestination::display() const
{
    const QString shown = host.contains(u':') ? u'[' + host + u']' : host;
    return shown + u':' + QString::number(port);
}

std::optional<QString> normaliseHost(QStringView host)
{
    if (host.size() >= 2 && host.front() == u'[' && host.back() == u']') {
        const QStringView inner = host.sliced(1, host.size() - 2);
        return inner.contains(u':') ? ipv6Text(inner) : std::nullopt;
    }
    if (host.contains(u':'))
        return ipv6Text(host);
    // ASCII only, checked before lower-casing: U+212A KELVIN SIGN lower-cases to "k".
    if (!std::all_of(host.begin(), host.end(), [](QChar c) { return c.unicode() < 0x80; }))
        return std::nullopt;
    QString name = host.toString().toLower();
    if (name.endsWith(u'.'))
        name.chop(1);
    if (name.isEmpty() || name.size() > kMaxNameLength)
        return std::nullopt;
    const QList<QStringView> labels = QStringView(name).split(u'.');
    if (isNumericLabel(labels.last()))
        return strictIpv4(name);
    for (QStringView label : labels) {
        if (label.isEmpty() || label.size() > kMaxLabelLength)
            return std::nullopt;
        for (QChar c : label) {
            if (!(c >= u'a' && c <= u'z') && !isDigit(c) && c != u'-' && c != u'_')
                return std::nullopt;
        }
    }
    return name;
}

std::optional<QString> specialAddressRange(const QHostAddress& address)
{
    return specialRangeHolding(address,
                               address.protocol() == QHostAddress::IPv4Protocol ? 32 : 128);
}

std::optional<QString> specialRangeHolding(const QHostAddress& network, int prefixLength)
{
    static const std::vector<ParsedBlock> ipv4 = parsed(kIpv4Blocks);
    static const std::vector<ParsedBlock> ipv6 = parsed(kIpv6Blocks);
    const bool isIpv4 = network.protocol() == QHostAddress::IPv4Protocol;
    if ((!isIpv4 && network.protocol() != QHostAddress::IPv6Protocol) || prefixLength < 0 ||
        prefixLength > (isIpv4 ? 32 : 128))
        return std::nullopt;
    QHostAddress unscoped = network;
    unscoped.setScopeId({});
    for (const ParsedBlock& candidate : isIpv4 ? ipv4 : ipv6) {
        const Block& block = candidate.block;
        if (prefixLength < block.prefix || !unscoped.isInSubnet(candidate.network, block.prefix))
            continue;
        if (block.embedding == Embedding::None)
            return QLatin1String(block.name);
        const Q_IPV6ADDR bytes = unscoped.toIPv6Address();
        const int offset = block.embedding == Embedding::Low32 ? 96 : 16;
        const auto embedded = specialRangeHolding(QHostAddress(ipv4At(bytes, offset / 8)),
                                                  std::clamp(prefixLength - offset, 0, 32));
        if (embedded)
            return QStringLiteral("%1 %2").arg(QLatin1String(block.name), *embedded);
        if (block.specialAnyway)
            return QStringLiteral("%1 (deprecated)").arg(QLatin1String(block.name));
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace sbw
