// The request line a network row keeps (egressRequestLine()) and the destination read back from
// it for "allow always" / "deny always" from a row (loggedDestination()): the same host and
// port the proxy judged, whatever the client's spelling; nothing for rows that are not
// connections or named no valid host.

#include "egress/EgressRequestLine.h"

#include <QtTest>

using namespace sbw;

namespace {

HttpProxyRequest requestOf(const QByteArray& head)
{
    HttpProxyRequestReader reader;
    reader.feed(head);
    return reader.request();
}

ActionRecord networkRow(const QString& command)
{
    ActionRecord row;
    row.kind = ActionKind::Network;
    row.command = command;
    return row;
}

} // namespace

class TestEgressRequestLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void lineAndDestination_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("destination");
        QTest::newRow("connect") << QByteArray("CONNECT PyPI.org.:443 HTTP/1.1\r\nHost: x\r\n\r\n")
                                 << "CONNECT PyPI.org.:443" << "pypi.org:443";
        QTest::newRow("http, default port")
            << QByteArray("GET http://example.com/simple/?a=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
            << "GET http://example.com:80/simple/?a=1" << "example.com:80";
        QTest::newRow("ipv6 literal") << QByteArray("POST http://[::1]:8080/x HTTP/1.0\r\n\r\n")
                                      << "POST http://[::1]:8080/x" << "[::1]:8080";
        QTest::newRow("connect ipv6") << QByteArray("CONNECT [2001:db8::1]:22 HTTP/1.1\r\n\r\n")
                                      << "CONNECT [2001:db8::1]:22" << "[2001:db8::1]:22";
    }
    void lineAndDestination()
    {
        QFETCH(QByteArray, head);
        QFETCH(QString, line);
        QFETCH(QString, destination);
        QCOMPARE(egressRequestLine(requestOf(head)), line);
        const auto read = loggedDestination(networkRow(line));
        QVERIFY(read.has_value());
        QCOMPARE(read->display(), destination);
    }

    void noDestinationWithoutAValidHost()
    {
        QCOMPARE(loggedDestination(networkRow(QStringLiteral("CONNECT 0x7f.1:443"))), std::nullopt);
        QCOMPARE(loggedDestination(networkRow(QStringLiteral("GET /relative"))), std::nullopt);
        QCOMPARE(loggedDestination(networkRow(QString())), std::nullopt);
        ActionRecord exec = networkRow(QStringLiteral("CONNECT pypi.org:443"));
        exec.kind = ActionKind::Exec;
        QCOMPARE(loggedDestination(exec), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestEgressRequestLine)
#include "tst_egressrequestline.moc"
