// CdpTunnel and CdpClient against a real WebSocket server standing in for the guest's browser:
// the tunnel's guest end is one end of a socketpair (as GuestSession::connectForward() hands
// it over), and the test relays the other end to a QWebSocketServer on the host's loopback.
// A client with the tunnel's token reaches that server and gets its answers, errors and events
// as CdpClient reports them; a connection without the token is closed before the guest sees a
// byte; after the first proven client the port is gone; and either side's end closes the other.

#include "browser/CdpClient.h"
#include "browser/CdpTunnel.h"

#include <QJsonDocument>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QWebSocket>
#include <QWebSocketServer>
#include <QtTest>

#include <optional>
#include <sys/socket.h>
#include <unistd.h>

using namespace sbw;

namespace {

constexpr int kTimeoutMs = 30000;
const QByteArray kPath = QByteArrayLiteral("/devtools/browser/07a5-test");

/// The guest's browser as far as the tunnel can tell: the socketpair end the tunnel does not
/// own, relayed (once its first bytes arrive, as an SSH forward connects on demand) to a
/// QWebSocketServer that records every connection and message. `received` holds every byte
/// that reached the guest end, so a test can show that nothing did.
class FakeGuestBrowser
{
public:
    FakeGuestBrowser() : m_server(QStringLiteral("fake-chromium"), QWebSocketServer::NonSecureMode) {}
    ~FakeGuestBrowser()
    {
        // No relaying while the members go away one by one.
        QObject::disconnect(&m_end, nullptr, nullptr, nullptr);
        QObject::disconnect(&m_relay, nullptr, nullptr, nullptr);
        QObject::disconnect(&m_server, nullptr, nullptr, nullptr);
        if (m_tunnelFd >= 0)
            ::close(m_tunnelFd);
    }
    FakeGuestBrowser(const FakeGuestBrowser&) = delete;
    FakeGuestBrowser& operator=(const FakeGuestBrowser&) = delete;

    /// Makes the socketpair and starts the server; false on failure.
    bool start()
    {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
            return false;
        m_tunnelFd = fds[0];
        if (!m_end.setSocketDescriptor(fds[1]) || !m_server.listen(QHostAddress::LocalHost, 0))
            return false;

        QObject::connect(&m_end, &QLocalSocket::readyRead, &m_end, [this] {
            const QByteArray data = m_end.readAll();
            received += data;
            if (m_relay.state() == QAbstractSocket::ConnectedState) {
                m_relay.write(data);
                return;
            }
            m_toServer += data;
            if (m_relay.state() == QAbstractSocket::UnconnectedState)
                m_relay.connectToHost(QHostAddress::LocalHost, m_server.serverPort());
        });
        QObject::connect(&m_relay, &QTcpSocket::connected, &m_relay, [this] { m_relay.write(std::exchange(m_toServer, {})); });
        QObject::connect(&m_relay, &QTcpSocket::readyRead, &m_relay, [this] { m_end.write(m_relay.readAll()); });
        // One side's end is the other's: the browser closing its socket ends the forward.
        QObject::connect(&m_relay, &QTcpSocket::disconnected, &m_relay, [this] { m_end.disconnectFromServer(); });
        QObject::connect(&m_end, &QLocalSocket::disconnected, &m_end, [this] { m_relay.disconnectFromHost(); });

        QObject::connect(&m_server, &QWebSocketServer::newConnection, &m_server, [this] {
            while (QWebSocket* socket = m_server.nextPendingConnection()) {
                socket->setParent(&m_server);
                connections.append(socket);
                QObject::connect(socket, &QWebSocket::textMessageReceived, &m_server, [this, socket](const QString& text) {
                    messages.append({socket, QJsonDocument::fromJson(text.toUtf8()).object()});
                });
            }
        });
        return true;
    }

    /// The fd for CdpTunnel, which takes ownership of it.
    int takeTunnelFd() { return std::exchange(m_tunnelFd, -1); }

    /// Answers `message` (a command) with `answer`, its id added.
    static void answer(const std::pair<QWebSocket*, QJsonObject>& message, QJsonObject answer)
    {
        answer.insert(QStringLiteral("id"), message.second.value(QStringLiteral("id")));
        message.first->sendTextMessage(QString::fromUtf8(QJsonDocument(answer).toJson(QJsonDocument::Compact)));
    }

    /// The guest's end of the forward, as the SSH channel would be.
    QLocalSocket& end() { return m_end; }

    QByteArray received;
    QList<QWebSocket*> connections;
    QList<std::pair<QWebSocket*, QJsonObject>> messages;

private:
    QLocalSocket m_end;
    QTcpSocket m_relay;
    QWebSocketServer m_server;
    QByteArray m_toServer;
    int m_tunnelFd = -1;
};

QJsonObject json(const char* text)
{
    return QJsonDocument::fromJson(text).object();
}

/// Records what a CdpClient::Reply got and how many times it was called.
struct ReplyRecord
{
    int calls = 0;
    std::optional<Expected<QJsonObject>> result;

    CdpClient::Reply callback()
    {
        return [this](Expected<QJsonObject> r) {
            ++calls;
            result = std::move(r);
        };
    }
    QString errorMessage() const { return result && !result->ok() ? result->error().message : QString(); }
};

/// An upgrade request as QWebSocket writes one, with `extraHeader` ("Name: value") added.
QByteArray upgradeRequest(quint16 port, const QByteArray& extraHeader)
{
    QByteArray request = "GET " + kPath + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) +
                         "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
    if (!extraHeader.isEmpty())
        request += extraHeader + "\r\n";
    return request + "\r\n";
}

} // namespace

class TestCdpTunnel : public QObject
{
    Q_OBJECT

    /// Opens `client` through `tunnel` with its token; true once opened() came.
    static bool openThrough(CdpClient& client, const CdpTunnel& tunnel)
    {
        QSignalSpy opened(&client, &CdpClient::opened);
        client.open(tunnel.url(), {{CdpTunnel::kTokenHeader, tunnel.token()}});
        return QTest::qWaitFor([&] { return opened.count() == 1; }, kTimeoutMs) && client.isOpen();
    }

private Q_SLOTS:
    void urlIsLoopbackWithThePathAndTokenIsRandom()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        QVERIFY(tunnel.isListening());
        QCOMPARE(tunnel.url().scheme(), QStringLiteral("ws"));
        QCOMPARE(tunnel.url().host(), QStringLiteral("127.0.0.1"));
        QVERIFY(tunnel.url().port() > 0);
        QCOMPARE(tunnel.url().path(), QString::fromLatin1(kPath));
        // 32 random bytes as hex; a second tunnel's token differs (no fixed or reused token).
        QCOMPARE(tunnel.token().size(), 64);
        QVERIFY(QByteArray::fromHex(tunnel.token()).toHex() == tunnel.token());
        FakeGuestBrowser other;
        QVERIFY(other.start());
        CdpTunnel second(other.takeTunnelFd(), kPath);
        QVERIFY(second.token() != tunnel.token());
        QVERIFY(second.url().port() != tunnel.url().port());
    }

    void provenClientReachesTheGuestWithThePath()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QCOMPARE(guest.connections.size(), 1);
        QCOMPARE(guest.connections.first()->requestUrl().path(), QString::fromLatin1(kPath));
        QVERIFY(guest.received.startsWith("GET " + kPath + " HTTP/1.1\r\n"));
    }

    void commandResultReachesTheReply()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));

        ReplyRecord first;
        ReplyRecord second;
        client.send(QStringLiteral("Browser.getVersion"), {}, QString(), first.callback());
        client.send(QStringLiteral("Runtime.evaluate"), json(R"({"expression": "1 + 1"})"), QStringLiteral("S"),
                    second.callback());
        QTRY_COMPARE_WITH_TIMEOUT(guest.messages.size(), 2, kTimeoutMs);
        // The browser sees CDP's command shape: a browser command without sessionId, a page's
        // with it.
        QCOMPARE(guest.messages.at(0).second, json(R"({"id": 1, "method": "Browser.getVersion", "params": {}})"));
        QCOMPARE(guest.messages.at(1).second, json(R"({"id": 2, "method": "Runtime.evaluate",
                                                       "params": {"expression": "1 + 1"}, "sessionId": "S"})"));

        // Answers come in any order and by id; an answer to no command in flight is dropped.
        FakeGuestBrowser::answer({guest.messages.at(1).first, json(R"({"id": 99})")}, json(R"({"result": {"stray": true}})"));
        FakeGuestBrowser::answer(guest.messages.at(1), json(R"({"result": {"result": {"type": "number", "value": 2}}})"));
        FakeGuestBrowser::answer(guest.messages.at(0), json(R"({"result": {"ok": true}})"));
        QTRY_COMPARE_WITH_TIMEOUT(first.calls, 1, kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(second.calls, 1, kTimeoutMs);
        QVERIFY(first.result->ok());
        QCOMPARE(first.result->value(), json(R"({"ok": true})"));
        QVERIFY(second.result->ok());
        QCOMPARE(second.result->value(), json(R"({"result": {"type": "number", "value": 2}})"));
        QVERIFY(client.isOpen());
    }

    void commandErrorNamesMethodMessageAndCode_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("shown");
        QTest::newRow("plain") << QStringLiteral("Cannot navigate") << QStringLiteral("Page.navigate: Cannot navigate (-32000)");
        // The message is the browser's text and may quote an address: its percent escapes are
        // text, not placeholders for the code.
        QTest::newRow("percent escapes") << QStringLiteral("Cannot navigate to http://h/a%2Fb%1")
                                         << QStringLiteral("Page.navigate: Cannot navigate to http://h/a%2Fb%1 (-32000)");
    }

    void commandErrorNamesMethodMessageAndCode()
    {
        QFETCH(QString, message);
        QFETCH(QString, shown);
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));

        ReplyRecord reply;
        client.send(QStringLiteral("Page.navigate"), QJsonObject{{QStringLiteral("url"), QStringLiteral("http://h/")}}, QStringLiteral("S"), reply.callback());
        QTRY_COMPARE_WITH_TIMEOUT(guest.messages.size(), 1, kTimeoutMs);
        FakeGuestBrowser::answer(guest.messages.at(0), QJsonObject{{QStringLiteral("error"),
                                                                    QJsonObject{{QStringLiteral("code"), -32000},
                                                                                {QStringLiteral("message"), message}}}});
        QTRY_COMPARE_WITH_TIMEOUT(reply.calls, 1, kTimeoutMs);
        QVERIFY(!reply.result->ok());
        QCOMPARE(reply.errorMessage(), shown);
    }

    void eventCarriesMethodParamsAndSession()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QSignalSpy events(&client, &CdpClient::event);

        guest.connections.first()->sendTextMessage(
            QStringLiteral(R"({"method": "Page.loadEventFired", "params": {"timestamp": 1234.5}, "sessionId": "S"})"));
        guest.connections.first()->sendTextMessage(QStringLiteral(R"({"method": "Target.targetCreated", "params": {}})"));
        QTRY_COMPARE_WITH_TIMEOUT(events.count(), 2, kTimeoutMs);
        QCOMPARE(events.at(0).at(0).toString(), QStringLiteral("Page.loadEventFired"));
        QCOMPARE(events.at(0).at(1).value<QJsonObject>(), json(R"({"timestamp": 1234.5})"));
        QCOMPARE(events.at(0).at(2).toString(), QStringLiteral("S"));
        // A browser event has no session.
        QCOMPARE(events.at(1).at(0).toString(), QStringLiteral("Target.targetCreated"));
        QCOMPARE(events.at(1).at(2).toString(), QString());
    }

    void sendBeforeOpenFailsAtOnce()
    {
        CdpClient client;
        ReplyRecord reply;
        client.send(QStringLiteral("Page.navigate"), {}, QString(), reply.callback());
        QCOMPARE(reply.calls, 1);
        QCOMPARE(reply.errorMessage(), QStringLiteral("Page.navigate: the DevTools connection is not open"));
    }

    void connectionWithoutTheTokenNeverReachesTheGuest_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::newRow("no token") << QByteArray();
        QTest::newRow("wrong token") << QByteArray("X-Sbw-Tunnel: 00000000000000000000000000000000");
        QTest::newRow("empty token") << QByteArray("X-Sbw-Tunnel:");
    }

    void connectionWithoutTheTokenNeverReachesTheGuest()
    {
        QFETCH(QByteArray, header);
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        QSignalSpy tunnelClosed(&tunnel, &CdpTunnel::closed);

        QTcpSocket intruder;
        QSignalSpy gone(&intruder, &QTcpSocket::disconnected);
        intruder.connectToHost(QHostAddress::LocalHost, quint16(tunnel.url().port()));
        QVERIFY(intruder.waitForConnected(kTimeoutMs));
        intruder.write(upgradeRequest(quint16(tunnel.url().port()), header));
        QTRY_COMPARE_WITH_TIMEOUT(gone.count(), 1, kTimeoutMs);
        QCOMPARE(intruder.readAll(), QByteArray()); // not even an HTTP error from the guest

        // The tunnel decided on the whole header block, so nothing can follow later: the guest
        // got no byte, and the tunnel still waits for its own client, which is then the
        // guest's first and only connection.
        QCOMPARE(guest.received, QByteArray());
        QVERIFY(guest.connections.isEmpty());
        QVERIFY(tunnel.isListening());
        QCOMPARE(tunnelClosed.count(), 0);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QCOMPARE(guest.connections.size(), 1);
        QVERIFY(guest.received.startsWith("GET " + kPath + " HTTP/1.1\r\n"));
        QVERIFY(guest.received.contains(CdpTunnel::kTokenHeader + ": " + tunnel.token() + "\r\n"));
    }

    void cdpClientWithoutTheTokenIsClosed()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        CdpClient client;
        QSignalSpy opened(&client, &CdpClient::opened);
        QSignalSpy closed(&client, &CdpClient::closed);
        client.open(tunnel.url(), {});
        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, kTimeoutMs);
        QCOMPARE(opened.count(), 0);
        QVERIFY(!client.isOpen());
        QCOMPARE(closed.at(0).at(0).toString(), QStringLiteral("the DevTools connection closed"));
        QCOMPARE(guest.received, QByteArray());
    }

    void headerBlockLongerThanAnUpgradeRequestIsClosed()
    {
        // A client that never ends its header block must not hold a connection (and a growing
        // buffer) forever.
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        QTcpSocket client;
        QSignalSpy gone(&client, &QTcpSocket::disconnected);
        client.connectToHost(QHostAddress::LocalHost, quint16(tunnel.url().port()));
        QVERIFY(client.waitForConnected(kTimeoutMs));
        client.write("GET " + kPath + " HTTP/1.1\r\nX-Padding: " + QByteArray(17 * 1024, 'a'));
        QTRY_COMPARE_WITH_TIMEOUT(gone.count(), 1, kTimeoutMs);
        QCOMPARE(guest.received, QByteArray());
        QVERIFY(tunnel.isListening());
    }

    void afterTheProvenClientTheTunnelStopsListening()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        const auto port = quint16(tunnel.url().port());

        // Connected before the proven client, its request (token and all) sent after: one
        // client per tunnel, so it is closed too.
        QTcpSocket early;
        QSignalSpy earlyGone(&early, &QTcpSocket::disconnected);
        early.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(early.waitForConnected(kTimeoutMs));

        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QVERIFY(!tunnel.isListening());

        early.write(upgradeRequest(port, CdpTunnel::kTokenHeader + ": " + tunnel.token()));
        QTRY_COMPARE_WITH_TIMEOUT(earlyGone.count(), 1, kTimeoutMs);

        QTcpSocket late;
        QSignalSpy lateError(&late, &QTcpSocket::errorOccurred);
        late.connectToHost(QHostAddress::LocalHost, port);
        QTRY_COMPARE_WITH_TIMEOUT(lateError.count(), 1, kTimeoutMs);
        QCOMPARE(late.error(), QAbstractSocket::ConnectionRefusedError);

        // Neither reached the guest, and the proven client still works.
        QCOMPARE(guest.connections.size(), 1);
        QCOMPARE(guest.received.count("GET " + kPath), 1);
        ReplyRecord reply;
        client.send(QStringLiteral("Browser.getVersion"), {}, QString(), reply.callback());
        QTRY_COMPARE_WITH_TIMEOUT(guest.messages.size(), 1, kTimeoutMs);
        FakeGuestBrowser::answer(guest.messages.at(0), json(R"({"result": {"ok": true}})"));
        QTRY_COMPARE_WITH_TIMEOUT(reply.calls, 1, kTimeoutMs);
        QCOMPARE(reply.result->value(), json(R"({"ok": true})"));
    }

    void guestEndClosingClosesClientAndFailsCommandsInFlight()
    {
        // The browser died or the SSH forward broke: the guest end just closes.
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        QSignalSpy tunnelClosed(&tunnel, &CdpTunnel::closed);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QSignalSpy closed(&client, &CdpClient::closed);

        ReplyRecord reply;
        client.send(QStringLiteral("Page.navigate"), QJsonObject{{QStringLiteral("url"), QStringLiteral("http://h/")}}, QStringLiteral("S"), reply.callback());
        QTRY_COMPARE_WITH_TIMEOUT(guest.messages.size(), 1, kTimeoutMs);
        guest.end().abort();

        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, kTimeoutMs);
        QCOMPARE(closed.at(0).at(0).toString(), QStringLiteral("the DevTools connection closed"));
        QCOMPARE(reply.calls, 1);
        QCOMPARE(reply.errorMessage(), QStringLiteral("Page.navigate: the DevTools connection closed"));
        QVERIFY(!client.isOpen());
        QCOMPARE(tunnelClosed.count(), 1);
        QCOMPARE(tunnelClosed.at(0).at(0).toString(), QStringLiteral("the browser in the guest closed its DevTools connection"));

        // After the close a command fails at once, and nothing is emitted twice.
        ReplyRecord after;
        client.send(QStringLiteral("Page.reload"), {}, QStringLiteral("S"), after.callback());
        QCOMPARE(after.errorMessage(), QStringLiteral("Page.reload: the DevTools connection is not open"));
        QTest::qWait(0); // deliver anything already queued
        QCOMPARE(closed.count(), 1);
        QCOMPARE(tunnelClosed.count(), 1);
        QCOMPARE(reply.calls, 1);
    }

    void abandonFailsCommandsInFlightAtOnceWithTheReason()
    {
        // The owner learned why the page will not answer (it crashed): its commands fail now,
        // with that reason, not after kCommandTimeout; closed() is not emitted for it.
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QSignalSpy closed(&client, &CdpClient::closed);

        ReplyRecord evaluate;
        ReplyRecord capture;
        client.send(QStringLiteral("Runtime.evaluate"), json(R"({"expression": "1"})"), QStringLiteral("S"), evaluate.callback());
        client.send(QStringLiteral("Page.captureScreenshot"), {}, QStringLiteral("S"), capture.callback());
        QTRY_COMPARE_WITH_TIMEOUT(guest.messages.size(), 2, kTimeoutMs);
        QVERIFY(client.hasPending());
        client.abandon(QStringLiteral("the page crashed (out of memory?)"));
        QCOMPARE(evaluate.calls, 1);
        QCOMPARE(evaluate.errorMessage(), QStringLiteral("the page crashed (out of memory?)"));
        QCOMPARE(capture.calls, 1);
        QCOMPARE(capture.errorMessage(), QStringLiteral("the page crashed (out of memory?)"));
        QVERIFY(!client.hasPending());
        QVERIFY(!client.isOpen());

        // A late answer reaches nobody; a later command fails at once.
        FakeGuestBrowser::answer(guest.messages.at(0), json(R"({"result": {}})"));
        ReplyRecord after;
        client.send(QStringLiteral("Page.reload"), {}, QStringLiteral("S"), after.callback());
        QCOMPARE(after.errorMessage(), QStringLiteral("Page.reload: the DevTools connection is not open"));
        QTest::qWait(0);
        QCOMPARE(evaluate.calls, 1);
        QCOMPARE(closed.count(), 0);
    }

    void browserClosingTheWebSocketGivesItsReason()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        QSignalSpy tunnelClosed(&tunnel, &CdpTunnel::closed);
        CdpClient client;
        QVERIFY(openThrough(client, tunnel));
        QSignalSpy closed(&client, &CdpClient::closed);

        ReplyRecord reply;
        client.send(QStringLiteral("Runtime.evaluate"), json(R"({"expression": "1"})"), QStringLiteral("S"), reply.callback());
        QTRY_COMPARE_WITH_TIMEOUT(guest.messages.size(), 1, kTimeoutMs);
        guest.connections.first()->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("browser shutting down"));

        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, kTimeoutMs);
        QCOMPARE(closed.at(0).at(0).toString(), QStringLiteral("the DevTools connection closed: browser shutting down"));
        QCOMPARE(reply.calls, 1);
        QCOMPARE(reply.errorMessage(), QStringLiteral("Runtime.evaluate: the DevTools connection closed: browser shutting down"));
        // Whichever end the tunnel saw go first, it reports one close.
        QTRY_COMPARE_WITH_TIMEOUT(tunnelClosed.count(), 1, kTimeoutMs);
    }

    void clientLeavingClosesTheGuestEnd()
    {
        // The tunnel relays bytes, whatever they are: a raw socket with the token is its client.
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        CdpTunnel tunnel(guest.takeTunnelFd(), kPath);
        QSignalSpy tunnelClosed(&tunnel, &CdpTunnel::closed);
        QSignalSpy guestEndGone(&guest.end(), &QLocalSocket::disconnected);

        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, quint16(tunnel.url().port()));
        QVERIFY(client.waitForConnected(kTimeoutMs));
        const QByteArray request = upgradeRequest(quint16(tunnel.url().port()), CdpTunnel::kTokenHeader + ": " + tunnel.token());
        client.write(request);
        QTRY_COMPARE_WITH_TIMEOUT(guest.received, request, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(client.bytesAvailable() > 0, kTimeoutMs);
        QVERIFY2(client.readAll().startsWith("HTTP/1.1 101"), "the guest's server answered the upgrade");

        client.abort();
        QTRY_COMPARE_WITH_TIMEOUT(tunnelClosed.count(), 1, kTimeoutMs);
        QCOMPARE(tunnelClosed.at(0).at(0).toString(), QStringLiteral("the DevTools client went away"));
        QTRY_COMPARE_WITH_TIMEOUT(guestEndGone.count(), 1, kTimeoutMs);
    }

    void destroyingTheTunnelClosesBothEndsSilently()
    {
        FakeGuestBrowser guest;
        QVERIFY(guest.start());
        auto tunnel = std::make_unique<CdpTunnel>(guest.takeTunnelFd(), kPath);
        QSignalSpy tunnelClosed(tunnel.get(), &CdpTunnel::closed);
        CdpClient client;
        QVERIFY(openThrough(client, *tunnel));
        QSignalSpy closed(&client, &CdpClient::closed);
        QSignalSpy guestEndGone(&guest.end(), &QLocalSocket::disconnected);

        tunnel.reset();
        QCOMPARE(tunnelClosed.count(), 0); // closed() is for an end that went, not the owner's delete
        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, kTimeoutMs);
        // The tunnel drops the TCP connection without a WebSocket close frame: no reason.
        QCOMPARE(closed.at(0).at(0).toString(), QStringLiteral("the DevTools connection closed"));
        QTRY_COMPARE_WITH_TIMEOUT(guestEndGone.count(), 1, kTimeoutMs);
    }
};

QTEST_GUILESS_MAIN(TestCdpTunnel)
#include "tst_cdptunnel.moc"
