// HttpProxyRequestReader: what a client sends the egress proxy, read with http-parser however
// the bytes are split: the destination, the head forwarded to the server (its Host from the
// URI, hop-by-hop headers out, one request per connection) and the exact body bytes, framing
// kept; anything that is not a proxy request is refused with its status.

#include "network/HttpProxyRequest.h"

#include <QtTest>

using sbw::HttpProxyRequest;
using sbw::HttpProxyRequestReader;

namespace {

/// What a reader made of `bytes` fed in pieces of `piece` bytes.
struct ReadResult
{
    HttpProxyRequestReader::State state;
    HttpProxyRequest request;
    QByteArray body;      ///< every Fed::body, joined
    qsizetype consumed = 0;
    int errorStatus = 0;
};

ReadResult readInPieces(const QByteArray& bytes, qsizetype piece)
{
    HttpProxyRequestReader reader;
    ReadResult result;
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        const QByteArrayView chunk = QByteArrayView(bytes).sliced(at, std::min(piece, bytes.size() - at));
        const auto fed = reader.feed(chunk);
        result.consumed += fed.consumed;
        result.body += fed.body.toByteArray();
        if (fed.consumed < chunk.size())
            break; // the rest is not this request's
    }
    result.state = reader.state();
    result.errorStatus = reader.errorStatus();
    if (reader.state() == HttpProxyRequestReader::State::Body || reader.state() == HttpProxyRequestReader::State::Done)
        result.request = reader.request();
    return result;
}

} // namespace

class TestHttpProxyRequest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void connectNamesTheTunnel()
    {
        const QByteArray head = "CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n";
        const QByteArray tls = "\x16\x03\x01\x02\x00";
        for (qsizetype piece : {qsizetype(1), qsizetype(7), head.size() + tls.size()}) {
            const ReadResult r = readInPieces(head + tls, piece);
            QCOMPARE(r.state, HttpProxyRequestReader::State::Done);
            QVERIFY(r.request.isConnect());
            QCOMPARE(r.request.host, QStringLiteral("pypi.org"));
            QCOMPARE(r.request.port, 443);
            QCOMPARE(r.consumed, head.size()); // the tunnel's bytes are left over
            QCOMPARE(r.body, QByteArray());
        }
    }

    void connectToAnIpv6Literal()
    {
        const ReadResult r = readInPieces("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n", 3);
        QCOMPARE(r.state, HttpProxyRequestReader::State::Done);
        QCOMPARE(r.request.host, QStringLiteral("::1"));
        QCOMPARE(r.request.port, 8443);
    }

    void plainGetIsForwardedInOriginForm()
    {
        const QByteArray request = "GET http://Example.org:8080/a/b?q=1#frag HTTP/1.1\r\n"
                                   "Host: evil.example\r\nUser-Agent: t\r\nProxy-Connection: keep-alive\r\n"
                                   "Connection: keep-alive, X-Secret\r\nX-Secret: 1\r\nAccept: */*\r\n\r\n";
        for (qsizetype piece = 1; piece <= request.size(); piece += 11) {
            const ReadResult r = readInPieces(request, piece);
            QCOMPARE(r.state, HttpProxyRequestReader::State::Done);
            QCOMPARE(r.request.host, QStringLiteral("Example.org"));
            QCOMPARE(r.request.port, 8080);
            QCOMPARE(r.consumed, request.size());
            QCOMPARE(r.request.forwardedHead(),
                     QByteArray("GET /a/b?q=1 HTTP/1.1\r\nHost: Example.org:8080\r\nUser-Agent: t\r\n"
                                "Accept: */*\r\nConnection: close\r\n\r\n"));
        }
    }

    void defaultPortAndPath()
    {
        const ReadResult r = readInPieces("HEAD http://example.org HTTP/1.0\r\n\r\n", 5);
        QCOMPARE(r.request.port, 80);
        QCOMPARE(r.request.forwardedHead(),
                 QByteArray("HEAD / HTTP/1.0\r\nHost: example.org\r\nConnection: close\r\n\r\n"));
    }

    void bodyBytesAreExactlyTheMessages_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("content-length")
            << QByteArray("POST http://h/x HTTP/1.1\r\nContent-Length: 11\r\n\r\n") << QByteArray("hello world");
        QTest::newRow("chunked")
            << QByteArray("POST http://h/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            << QByteArray("5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n");
        QTest::newRow("no body") << QByteArray("GET http://h/x HTTP/1.1\r\n\r\n") << QByteArray();
    }

    void bodyBytesAreExactlyTheMessages()
    {
        QFETCH(QByteArray, head);
        QFETCH(QByteArray, body);
        const QByteArray next = "GET http://other.example/ HTTP/1.1\r\n\r\n";
        for (qsizetype piece = 1; piece <= head.size() + body.size() + next.size(); ++piece) {
            const ReadResult r = readInPieces(head + body + next, piece);
            QCOMPARE(r.state, HttpProxyRequestReader::State::Done);
            QCOMPARE(r.body, body);
            QCOMPARE(r.consumed, head.size() + body.size()); // a pipelined second request is left over
        }
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::newRow("origin form") << QByteArray("GET / HTTP/1.1\r\nHost: h\r\n\r\n") << 400;
        QTest::newRow("https uri") << QByteArray("GET https://h/ HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("ftp uri") << QByteArray("GET ftp://h/ HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("userinfo") << QByteArray("GET http://u:p@h/ HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("connect without port") << QByteArray("CONNECT h HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("connect to port 0") << QByteArray("CONNECT h:0 HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("not http") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n") << 400;
        QTest::newRow("both lengths") << QByteArray("POST http://h/ HTTP/1.1\r\nContent-Length: 3\r\n"
                                                    "Transfer-Encoding: chunked\r\n\r\n")
                                      << 400;
        QTest::newRow("two lengths") << QByteArray("POST http://h/ HTTP/1.1\r\nContent-Length: 3\r\n"
                                                   "Content-Length: 4\r\n\r\n")
                                     << 400;
        QTest::newRow("long head") << "GET http://h/ HTTP/1.1\r\nX: " + QByteArray(70000, 'a') << 431;
    }

    void refusals()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        for (qsizetype piece : {qsizetype(1000), bytes.size()}) {
            const ReadResult r = readInPieces(bytes, piece);
            QCOMPARE(r.state, HttpProxyRequestReader::State::Error);
            QCOMPARE(r.errorStatus, status);
        }
    }

    void emptyReadsChangeNothing()
    {
        HttpProxyRequestReader reader;
        for (const QByteArray& piece : {QByteArray("PO"), QByteArray(), QByteArray("ST http://h/ HTTP/1.1\r\n"),
                                        QByteArray(), QByteArray("Content-Length: 1\r\n\r\n"), QByteArray(), QByteArray("x")})
            reader.feed(piece);
        QCOMPARE(reader.state(), HttpProxyRequestReader::State::Done);
    }

    void connectionCannotDropTheFraming()
    {
        const ReadResult r = readInPieces("POST http://h/ HTTP/1.1\r\nConnection: content-length, host\r\n"
                                          "Content-Length: 2\r\n\r\nok",
                                          4);
        QCOMPARE(r.request.forwardedHead(),
                 QByteArray("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: close\r\n\r\n"));
        QCOMPARE(r.body, QByteArray("ok"));
    }
};

QTEST_APPLESS_MAIN(TestHttpProxyRequest)
#include "tst_httpproxyrequest.moc"
