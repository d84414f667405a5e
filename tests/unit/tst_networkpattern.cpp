// core/network: host names and addresses in their normal form (normaliseHost()), special-purpose
// address ranges, and network rule patterns (parse, matches, namesExplicitly).

#include "network/NetworkDestination.h"
#include "network/NetworkPattern.h"

#include <QtTest>

using namespace sbw;

namespace {

NetworkDestination destination(const QString& host, quint16 port = 443)
{
    return NetworkDestination{host, port, {}};
}

} // namespace

class TestNetworkPattern : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void normaliseHost_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("expected"); // null: rejected
        const auto row = [](const char* name, const QString& host, const QString& expected) {
            QTest::newRow(name) << host << expected;
        };
        const QString rejected;
        row("name", QStringLiteral("pypi.org"), QStringLiteral("pypi.org"));
        row("upper case", QStringLiteral("PyPI.ORG"), QStringLiteral("pypi.org"));
        row("trailing dot", QStringLiteral("pypi.org."), QStringLiteral("pypi.org"));
        row("two trailing dots", QStringLiteral("pypi.org.."), rejected);
        row("single label", QStringLiteral("localhost"), QStringLiteral("localhost"));
        row("hyphen and underscore", QStringLiteral("_dmarc.my-host.example"),
            QStringLiteral("_dmarc.my-host.example"));
        row("punycode", QStringLiteral("xn--bcher-kva.example"),
            QStringLiteral("xn--bcher-kva.example"));
        row("unicode", QStringLiteral("bücher.example"), rejected);
        row("kelvin sign", QStringLiteral("\u212Aexample.org"), rejected); // lower-cases to "k"
        row("empty", QString(), rejected);
        row("dot", QStringLiteral("."), rejected);
        row("empty label", QStringLiteral("a..example"), rejected);
        row("leading dot", QStringLiteral(".example"), rejected);
        row("space", QStringLiteral("a b.example"), rejected);
        row("leading space", QStringLiteral(" pypi.org"), rejected);
        row("nul", QStringLiteral("pypi.org\0.evil").left(14), rejected);
        row("slash", QStringLiteral("pypi.org/x"), rejected);
        row("at", QStringLiteral("user@pypi.org"), rejected);
        row("star", QStringLiteral("*.pypi.org"), rejected);
        row("label of 63", QString(63, u'a') + QStringLiteral(".example"),
            QString(63, u'a') + QStringLiteral(".example"));
        row("label of 64", QString(64, u'a') + QStringLiteral(".example"), rejected);
        const QString name253 = QString(61, u'a') + QLatin1Char('.') + QString(63, u'b') +
                                QLatin1Char('.') + QString(63, u'c') + QLatin1Char('.') +
                                QString(63, u'd');
        QCOMPARE(name253.size(), 253);
        row("name of 253", name253, name253);
        row("name of 253 and a dot", name253 + QLatin1Char('.'), name253);
        row("name of 254", QLatin1Char('x') + name253, rejected);
        // Addresses, and the spellings that must not pass as names.
        row("ipv4", QStringLiteral("127.0.0.1"), QStringLiteral("127.0.0.1"));
        row("ipv4 trailing dot", QStringLiteral("10.1.2.3."), QStringLiteral("10.1.2.3"));
        row("ipv4 short", QStringLiteral("127.1"), rejected);
        row("ipv4 hex", QStringLiteral("0x7f.1"), rejected);
        row("ipv4 hex whole", QStringLiteral("0x7f000001"), rejected);
        row("ipv4 decimal", QStringLiteral("2130706433"), rejected);
        row("ipv4 octal", QStringLiteral("0177.0.0.1"), rejected);
        row("ipv4 leading zero", QStringLiteral("127.0.0.01"), rejected);
        row("ipv4 over 255", QStringLiteral("256.0.0.1"), rejected);
        row("ipv4 five parts", QStringLiteral("1.2.3.4.5"), rejected);
        row("numeric last label", QStringLiteral("example.123"), rejected);
        row("hex last label", QStringLiteral("example.0x1"), rejected);
        row("0x alone", QStringLiteral("a.0x"), rejected);
        row("numeric first label", QStringLiteral("123.example"), QStringLiteral("123.example"));
        row("ipv6", QStringLiteral("::1"), QStringLiteral("::1"));
        row("ipv6 brackets", QStringLiteral("[::1]"), QStringLiteral("::1"));
        row("ipv6 long", QStringLiteral("[2001:DB8:0:0:0:0:0:1]"), QStringLiteral("2001:db8::1"));
        row("ipv6 mapped", QStringLiteral("[::ffff:127.0.0.1]"), QStringLiteral("127.0.0.1"));
        row("ipv6 mapped hex", QStringLiteral("::ffff:7f00:1"), QStringLiteral("127.0.0.1"));
        row("ipv6 zone", QStringLiteral("fe80::1%eth0"), rejected);
        row("ipv6 space", QStringLiteral(" ::1"), rejected);
        row("ipv6 bad", QStringLiteral("[::1::2]"), rejected);
        row("ipv4 in brackets", QStringLiteral("[127.0.0.1]"), rejected);
        row("name in brackets", QStringLiteral("[pypi.org]"), rejected);
        row("half bracket", QStringLiteral("[::1"), rejected);
        row("port", QStringLiteral("pypi.org:443"), rejected);
    }
    void normaliseHost()
    {
        QFETCH(QString, host);
        QFETCH(QString, expected);
        const auto normalised = sbw::normaliseHost(host);
        QCOMPARE(normalised.has_value(), !expected.isNull());
        if (normalised) {
            QCOMPARE(*normalised, expected);
            QCOMPARE(sbw::normaliseHost(*normalised), normalised); // the normal form is stable
        }
    }

    void destinationShowsHostAndPort()
    {
        QCOMPARE(destination(QStringLiteral("pypi.org")).display(), QStringLiteral("pypi.org:443"));
        QCOMPARE(destination(QStringLiteral("::1"), 8080).display(), QStringLiteral("[::1]:8080"));
        QVERIFY(destination(QStringLiteral("::1")).isLiteralAddress());
        QVERIFY(destination(QStringLiteral("10.0.0.1")).isLiteralAddress());
        QVERIFY(!destination(QStringLiteral("pypi.org")).isLiteralAddress());
    }

    void specialAddressRange_data()
    {
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("range"); // null: ordinary
        const auto row = [](const char* address, const char* range) {
            QTest::newRow(address)
                << QString::fromLatin1(address) << (range ? QString::fromUtf8(range) : QString());
        };
        row("0.0.0.0", "unspecified");
        row("0.1.2.3", "this network");
        row("10.20.30.40", "private");
        row("100.64.0.1", "shared address space (CGNAT)");
        row("100.127.255.255", "shared address space (CGNAT)");
        row("100.128.0.1", nullptr);
        row("127.0.0.1", "loopback");
        row("127.255.255.254", "loopback");
        row("169.254.169.254", "link-local");
        row("172.16.0.1", "private");
        row("172.31.255.255", "private");
        row("172.32.0.1", nullptr);
        row("192.0.0.8", "IETF protocol assignments");
        row("192.0.2.1", "documentation (TEST-NET-1)");
        row("192.88.99.1", "6to4 relay anycast");
        row("192.168.1.1", "private");
        row("198.18.0.1", "benchmarking");
        row("198.19.255.255", "benchmarking");
        row("198.51.100.7", "documentation (TEST-NET-2)");
        row("203.0.113.9", "documentation (TEST-NET-3)");
        row("224.0.0.251", "multicast");
        row("240.0.0.1", "reserved");
        row("255.255.255.255", "broadcast");
        row("8.8.8.8", nullptr);
        row("151.101.0.223", nullptr);
        row("::", "unspecified");
        row("::1", "loopback");
        row("::ffff:127.0.0.1", "IPv4-mapped loopback");
        row("::ffff:10.0.0.1", "IPv4-mapped private");
        row("::ffff:169.254.169.254", "IPv4-mapped link-local");
        row("::ffff:8.8.8.8", nullptr);
        row("::127.0.0.1", "IPv4-compatible loopback");
        row("::8.8.8.8", "IPv4-compatible (deprecated)");
        row("64:ff9b::127.0.0.1", "NAT64 loopback");
        row("64:ff9b::10.1.1.1", "NAT64 private");
        row("64:ff9b::8.8.8.8", nullptr);
        row("64:ff9b:1::1", "local-use NAT64");
        row("100::1", "discard-only");
        row("2001::1", "Teredo");
        row("2001:db8::1", "documentation");
        row("2001:2::1", "IETF protocol assignments");
        row("2002:7f00:1::1", "6to4 loopback");
        row("2002:0808:0808::1", nullptr);
        row("3fff::1", "documentation");
        row("fc00::1", "unique local");
        row("fd12:3456::1", "unique local");
        row("fe80::1", "link-local");
        row("fec0::1", "site-local (deprecated)");
        row("ff02::1", "multicast");
        row("4000::1", "reserved");
        row("e000::1", "reserved");
        row("2a00:1450:4001:80b::200e", nullptr);
        row("2606:4700::6810:84e5", nullptr);
    }
    void specialAddressRange()
    {
        QFETCH(QString, address);
        QFETCH(QString, range);
        const QHostAddress parsed(address);
        QVERIFY(!parsed.isNull());
        const auto special = sbw::specialAddressRange(parsed);
        QCOMPARE(special.value_or(QString()), range);
        QCOMPARE(special.has_value(), !range.isNull());
    }

    void rangesHeldBySpecialRanges()
    {
        const auto holding = [](const char* network, int length) {
            return specialRangeHolding(QHostAddress(QLatin1String(network)), length);
        };
        QCOMPARE(holding("127.0.0.0", 8), QStringLiteral("loopback"));
        QCOMPARE(holding("10.1.0.0", 16), QStringLiteral("private"));
        QCOMPARE(holding("0.0.0.0", 8), QStringLiteral("this network"));
        QCOMPARE(holding("0.0.0.0", 0), std::nullopt);
        QCOMPARE(holding("10.0.0.0", 7), std::nullopt); // 10/7 holds 11/8, which is public
        QCOMPARE(holding("::", 0), std::nullopt);
        QCOMPARE(holding("2000::", 3), std::nullopt);
        QCOMPARE(holding("fd00::", 8), QStringLiteral("unique local"));
        QCOMPARE(holding("64:ff9b::7f00:0", 104), QStringLiteral("NAT64 loopback"));
        QCOMPARE(holding("64:ff9b::", 96), std::nullopt);
        QCOMPARE(holding("127.0.0.0", 33), std::nullopt);
    }

    void patternsParse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("normalised"); // null: an error
        QTest::addColumn<bool>("isRange");
        QTest::addColumn<QString>("error");
        const auto good = [](const char* text, const char* normalised, bool isRange = false) {
            QTest::newRow(text) << QString::fromLatin1(text) << QString::fromLatin1(normalised)
                                << isRange << QString();
        };
        const auto bad = [](const char* text, const char* error) {
            QTest::newRow(text) << QString::fromLatin1(text) << QString() << false
                                << QString::fromUtf8(error);
        };
        good("pypi.org", "pypi.org");
        good("PyPI.org.", "pypi.org");
        good("*.github.com", "*.github.com");
        good("*.GitHub.com", "*.github.com");
        good("*", "*");
        good("10.0.0.0/8", "10.0.0.0/8", true);
        good("fd00::/8", "fd00::/8", true);
        good("[fd00::]/8", "fd00::/8", true);
        good("127.0.0.1", "127.0.0.1", true);
        good("::1", "::1", true);
        good("0.0.0.0/0", "0.0.0.0/0", true);
        good("::ffff:127.0.0.1", "127.0.0.1", true);
        bad("*.", "\"*.\" is not a host name, *.NAME or an address range");
        bad("", "\"\" is not a host name, *.NAME or an address range");
        bad("*github.com", "\"*github.com\" is not a host name, *.NAME or an address range");
        bad("a.*.com", "\"a.*.com\" is not a host name, *.NAME or an address range");
        bad("**", "\"**\" is not a host name, *.NAME or an address range");
        bad("*.10.0.0.1", "\"*.10.0.0.1\" is not a host name, *.NAME or an address range");
        bad("127.1", "\"127.1\" is not a host name, *.NAME or an address range");
        bad("pypi.org/24", "\"pypi.org/24\" is not a host name, *.NAME or an address range");
        bad("10.0.0.0/33", "\"10.0.0.0/33\": /33 is not a prefix length (0–32)");
        bad("10.0.0.0/", "\"10.0.0.0/\": / is not a prefix length (0–32)");
        bad("10.0.0.0/-1", "\"10.0.0.0/-1\": /-1 is not a prefix length (0–32)");
        bad("10.0.0.0/ 8", "\"10.0.0.0/ 8\": / 8 is not a prefix length (0–32)");
        bad("fd00::/129", "\"fd00::/129\": /129 is not a prefix length (0–128)");
        bad("10.0.0.1/8",
            "\"10.0.0.1/8\": the address has bits set past /8 (the range starts at 10.0.0.0)");
    }
    void patternsParse()
    {
        QFETCH(QString, text);
        QFETCH(QString, normalised);
        QFETCH(bool, isRange);
        QFETCH(QString, error);
        const auto pattern = NetworkPattern::parse(text);
        if (normalised.isNull()) {
            QVERIFY(!pattern);
            QCOMPARE(pattern.error().message, error);
            return;
        }
        QVERIFY2(pattern, qPrintable(pattern ? QString() : pattern.error().message));
        QCOMPARE(pattern->text(), normalised);
        QCOMPARE(pattern->isRange(), isRange);
        QCOMPARE(NetworkPattern::parse(pattern->text()).value(),
                 pattern.value()); // text() parses back
    }

    void patternsMatch_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("host");
        QTest::addColumn<bool>("matches");
        const auto row = [](const char* pattern, const char* host, bool matches) {
            QTest::newRow(qPrintable(
                QStringLiteral("%1 ~ %2").arg(QLatin1String(pattern), QLatin1String(host))))
                << QString::fromLatin1(pattern) << QString::fromLatin1(host) << matches;
        };
        row("pypi.org", "pypi.org", true);
        row("pypi.org", "www.pypi.org", false);
        row("pypi.org", "pypi.org.evil", false);
        row("*.github.com", "api.github.com", true);
        row("*.github.com", "a.b.github.com", true);
        row("*.github.com", "github.com", false);
        row("*.github.com", "evilgithub.com", false);
        row("*.github.com", "github.com.evil", false);
        row("*", "pypi.org", true);
        row("*", "localhost", true);
        row("*", "127.0.0.1", false);
        row("*", "::1", false);
        row("10.0.0.0/8", "10.1.2.3", true);
        row("10.0.0.0/8", "11.0.0.1", false);
        row("10.0.0.0/8", "::ffff:a00:1", false); // never in a destination: normalised to 10.0.0.1
        row("10.0.0.0/8", "fd00::1", false);
        row("fd00::/8", "fd00::1", true);
        row("fd00::/8", "fe80::1", false);
        row("127.0.0.1", "127.0.0.1", true);
        row("127.0.0.1", "127.0.0.2", false);
        row("::1", "::1", true);
        row("0.0.0.0/0", "8.8.8.8", true);
        row("0.0.0.0/0", "pypi.org", false); // a range never matches a name
        row("127.0.0.0/8", "localhost", false);
        row("*.0", "a.0", false);
        // Hosts not in their normal form match nothing.
        row("*", "0x7f.1", false);
        row("*", "PyPI.org", false);
        row("*", "fe80::1%eth0", false);
        row("*", "", false);
        row("pypi.org", "pypi.org.", false);
    }
    void patternsMatch()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, host);
        QFETCH(bool, matches);
        const auto parsed = NetworkPattern::parse(pattern);
        if (!parsed) {
            QVERIFY(!matches);
            return;
        }
        QCOMPARE(parsed->matches(destination(host)), matches);
    }

    void patternsNameAddressesExplicitly_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("explicitly");
        const auto row = [](const char* name, const char* pattern, const char* host,
                            const char* address, bool explicitly) {
            QTest::newRow(name) << QString::fromLatin1(pattern) << QString::fromLatin1(host)
                                << QString::fromLatin1(address) << explicitly;
        };
        row("exact name", "db.internal", "db.internal", "10.0.0.5", true);
        row("other name", "db.internal", "www.internal", "10.0.0.5", false);
        row("suffix", "*.internal", "db.internal", "10.0.0.5", false);
        row("every name", "*", "db.internal", "127.0.0.1", false);
        row("loopback range", "127.0.0.0/8", "localhost", "127.0.0.1", true);
        row("loopback address", "127.0.0.1", "127.0.0.1", "127.0.0.1", true);
        row("mapped address", "127.0.0.0/8", "localhost", "::ffff:127.0.0.1", true);
        row("address outside", "127.0.0.0/8", "x.example", "10.0.0.1", false);
        row("everything", "0.0.0.0/0", "x.example", "127.0.0.1", false);
        row("everything v6", "::/0", "x.example", "::1", false);
        row("straddling", "10.0.0.0/7", "x.example", "10.0.0.1", false);
        row("unique local", "fd00::/8", "x.example", "fd00::1", true);
        row("link-local", "169.254.169.254", "169.254.169.254", "169.254.169.254", true);
    }
    void patternsNameAddressesExplicitly()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, host);
        QFETCH(QString, address);
        QFETCH(bool, explicitly);
        const auto parsed = NetworkPattern::parse(pattern);
        QVERIFY(parsed);
        QCOMPARE(parsed->namesExplicitly(destination(host), QHostAddress(address)), explicitly);
    }
};

QTEST_GUILESS_MAIN(TestNetworkPattern)
#include "tst_networkpattern.moc"
