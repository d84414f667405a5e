#include "egress/EgressConnection.h"

#include "base/Async.h"
#include "egress/EgressProxy.h"
#include "egress/EgressRequestLine.h"
#include "log/LoggedAction.h"
#include "network/NetworkDestination.h"
#include "network/TlsClientHello.h"

#include <QHostInfo>
#include <QLocalSocket>
#include <QTcpSocket>
#include <QTimer>

#include <atomic>

namespace sbw {
namespace {

/// Bytes read from one side per turn, and how much may wait unsent towards the other side
/// before reading from this one pauses (so a fast server cannot fill the host's memory).
constexpr qint64 kChunk = 64 * 1024;
constexpr qint64 kHighWater = 1024 * 1024;
/// How long connecting to a server may take before the client gets 504.
constexpr int kConnectTimeoutMs = 30000;

std::atomic<qint64> g_nextId{1};

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 431:
        return "Request Header Fields Too Large";
    case 502:
        return "Bad Gateway";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Error";
    }
}

ActionEnd endWith(Outcome outcome, const QString& error)
{
    ActionEnd end;
    end.outcome = outcome;
    end.error = error;
    return end;
}

void setReadBufferSize(QIODevice* device, qint64 size)
{
    if (auto* local = qobject_cast<QLocalSocket*>(device))
        local->setReadBufferSize(size);
    else if (auto* socket = qobject_cast<QAbstractSocket*>(device))
        socket->setReadBufferSize(size);
}

} // namespace

EgressConnection::EgressConnection(EgressProxy* proxy, QIODevice* client, QString sandbox,
                                   quint16 guestSourcePort, std::function<QString()> findProgram,
                                   QObject* parent)
    : QObject(parent), m_proxy(proxy), m_client(client), m_sandbox(std::move(sandbox)),
      m_guestSourcePort(guestSourcePort), m_findProgram(std::move(findProgram)), m_id(g_nextId++),
      m_postBack(std::make_shared<PostBack<EgressConnection>>(this))
{
    m_client->setParent(this);
    setReadBufferSize(m_client, kHighWater);
    m_timer.start();
}

EgressConnection::~EgressConnection()
{
    m_postBack->close();
    if (m_waiting)
        m_proxy->withdraw(m_id, QStringLiteral("the workbench closed the connection"));
    if (m_decided)
        startRow();
    if (m_row)
        m_row->finish(endWith(Outcome::Error, QStringLiteral("the workbench closed the connection")));
}

void EgressConnection::start()
{
    connect(m_client, &QIODevice::readyRead, this, &EgressConnection::readClient);
    connect(m_client, &QIODevice::bytesWritten, this, &EgressConnection::relay);
    readClient();
}

void EgressConnection::readClient()
{
    switch (m_phase) {
    case Phase::Request: {
        const QByteArray bytes = m_client->read(kChunk);
        const auto fed = m_reader.feed(bytes);
        if (m_reader.state() == HttpProxyRequestReader::State::Error)
            return refuse(m_reader.errorStatus(), m_reader.errorText(), Outcome::Error);
        if (m_reader.state() == HttpProxyRequestReader::State::Head) {
            if (m_client->bytesAvailable() > 0)
                readClient();
            return;
        }
        m_toServer = fed.body.toByteArray();
        if (m_reader.request().isConnect())
            m_toServer += bytes.mid(fed.consumed); // the tunnel's first bytes
        return judge();
    }
    case Phase::ServerHello:
        return checkClientHello();
    case Phase::Relaying:
        return relay();
    default:
        return; // the bytes wait in the socket until the server is connected
    }
}

void EgressConnection::judge()
{
    const HttpProxyRequest& request = m_reader.request();
    const auto host = normaliseHost(request.host);
    m_request.sandbox = m_sandbox;
    m_request.actor = Actor{Actor::Kind::Guest, m_guestSourcePort != 0
                                                    ? QStringLiteral("127.0.0.1:%1").arg(m_guestSourcePort)
                                                    : QString()};
    m_request.kind = ActionKind::Network;
    m_request.command = egressRequestLine(request);
    if (!host)
        return refuse(400, QStringLiteral("\"%1\" is not a host name or address").arg(request.host), Outcome::Error);
    m_request.destination.host = *host;
    m_request.destination.port = request.port;
    if (m_request.destination.isLiteralAddress())
        m_request.destination.addresses = {QHostAddress(*host)};
    m_phase = Phase::Judging;
    m_waiting = true;
    std::weak_ptr<PostBack<EgressConnection>> postBack = m_postBack;
    m_proxy->decide(m_id, m_request, m_findProgram, [postBack](const GateDecision& decision, const Actor& actor) {
        if (const auto target = postBack.lock())
            target->post([decision, actor](EgressConnection* self) {
                self->m_request.actor = actor;
                self->decided(decision);
            });
    });
}

void EgressConnection::decided(const GateDecision& decision)
{
    m_waiting = false;
    if (!decision.allowed) {
        m_rowDone = true; // the gate wrote the row of a refused action
        return refuse(403, decision.reason, Outcome::Denied);
    }
    m_decision = decision;
    m_decided = true;
    resolve();
}

void EgressConnection::startRow()
{
    if (m_row || m_rowDone)
        return;
    ActionStart start;
    start.sandbox = m_sandbox;
    start.actor = m_request.actor.kind == Actor::Kind::Guest ? m_request.actor : Actor{Actor::Kind::Guest, {}};
    start.kind = ActionKind::Network;
    start.command = m_request.command;
    if (m_decided) {
        start.approval = m_decision.approval;
        start.approver = m_decision.approver;
    }
    start.elapsedMs = m_timer.elapsed(); // the row starts when the connection did
    m_row = std::make_unique<LoggedAction>(m_proxy->m_log, start);
}

void EgressConnection::resolve()
{
    m_phase = Phase::Resolving;
    if (m_request.destination.isLiteralAddress())
        return resolved(m_request.destination.addresses, {});
    QHostInfo::lookupHost(m_request.destination.host, this, [this](const QHostInfo& info) {
        resolved(info.addresses(), info.error() == QHostInfo::NoError ? QString() : info.errorString());
    });
}

void EgressConnection::resolved(const QList<QHostAddress>& addresses, const QString& error)
{
    if (addresses.isEmpty())
        return refuse(502,
                      QStringLiteral("cannot resolve %1: %2")
                          .arg(m_request.destination.host, error.isEmpty() ? QStringLiteral("no address") : error),
                      Outcome::Error);
    m_request.destination.addresses = addresses;
    if (m_request.destination.isLiteralAddress() && m_decision.approval == Approval::Approved) {
        // The person saw the address itself; only names need a rule to reach special ranges
        // (an allowed name must not be pointed at the host's own services).
        m_addresses = addresses;
        return connectServer();
    }
    std::weak_ptr<PostBack<EgressConnection>> postBack = m_postBack;
    m_proxy->checkAddresses(m_request, [postBack](std::optional<QString> refusal) {
        if (const auto target = postBack.lock())
            target->post([refusal](EgressConnection* self) {
                if (refusal && self->m_decision.approval == Approval::Approved && !self->m_askedAboutAddress)
                    return self->askAboutAddress(*refusal);
                if (refusal)
                    return self->refuse(403, *refusal, Outcome::Denied);
                self->m_addresses = self->m_request.destination.addresses;
                self->connectServer();
            });
    });
}

void EgressConnection::askAboutAddress(const QString& refusal)
{
    m_askedAboutAddress = true;
    ActionRequest again = m_request;
    again.command += QStringLiteral(" (%1)").arg(refusal.section(QLatin1Char(';'), 0, 0));
    m_phase = Phase::Judging;
    m_waiting = true;
    std::weak_ptr<PostBack<EgressConnection>> postBack = m_postBack;
    m_proxy->decide(m_id, again, {}, [postBack](const GateDecision& decision, const Actor&) {
        if (const auto target = postBack.lock())
            target->post([decision](EgressConnection* self) { self->addressDecided(decision); });
    });
}

void EgressConnection::addressDecided(const GateDecision& decision)
{
    m_waiting = false;
    if (!decision.allowed) {
        m_rowDone = true;
        return refuse(403, decision.reason, Outcome::Denied);
    }
    m_decision = decision;
    m_addresses = m_request.destination.addresses;
    connectServer();
}

void EgressConnection::connectServer()
{
    startRow();
    m_phase = Phase::Connecting;
    if (m_addresses.isEmpty())
        return refuse(502, QStringLiteral("cannot connect to %1").arg(m_request.destination.display()),
                      Outcome::Error);
    const QHostAddress address = m_addresses.takeFirst();
    delete m_server;
    m_server = new QTcpSocket(this);
    setReadBufferSize(m_server, kHighWater);
    connect(m_server, &QTcpSocket::connected, this, &EgressConnection::serverConnected);
    connect(m_server, &QTcpSocket::errorOccurred, this, [this, address](QAbstractSocket::SocketError error) {
        if (m_phase == Phase::Connecting) {
            if (!m_addresses.isEmpty())
                return connectServer();
            return refuse(502,
                          QStringLiteral("cannot connect to %1 (%2): %3")
                              .arg(m_request.destination.display(), address.toString(), m_server->errorString()),
                          Outcome::Error);
        }
        if (error != QAbstractSocket::RemoteHostClosedError)
            close(endWith(Outcome::Error, QStringLiteral("the connection to the server broke: %1").arg(m_server->errorString())));
    });
    connect(m_server, &QTcpSocket::readyRead, this, &EgressConnection::relay);
    connect(m_server, &QTcpSocket::bytesWritten, this, &EgressConnection::relay);
    connect(m_server, &QTcpSocket::disconnected, this, [this] {
        if (m_phase == Phase::Closing)
            return deleteWhenClosed();
        m_serverEnded = true;
        relay();
    });
    QTimer::singleShot(kConnectTimeoutMs, m_server, [this] {
        if (m_phase == Phase::Connecting)
            refuse(504, QStringLiteral("%1 did not answer within %2 s").arg(m_request.destination.display()).arg(kConnectTimeoutMs / 1000),
                   Outcome::Error);
    });
    m_server->connectToHost(address, m_request.destination.port);
}

void EgressConnection::serverConnected()
{
    m_peerAddress = m_server->peerAddress().toString();
    if (m_reader.request().isConnect()) {
        m_client->write("HTTP/1.1 200 Connection established\r\n\r\n");
        m_phase = Phase::ServerHello;
        return checkClientHello();
    }
    const QByteArray head = m_reader.request().forwardedHead();
    m_server->write(head);
    m_server->write(m_toServer);
    m_bytesSent += head.size() + m_toServer.size();
    m_toServer.clear();
    m_phase = Phase::Relaying;
    relay();
}

void EgressConnection::checkClientHello()
{
    m_toServer += m_client->read(kMaxClientHelloBytes - m_toServer.size() + 1);
    const ClientHelloSni hello = readClientHelloSni(m_toServer);
    const NetworkDestination& destination = m_request.destination;
    QString refusal;
    switch (hello.status) {
    case ClientHelloSni::Status::Incomplete:
        return;
    case ClientHelloSni::Status::Found:
        if (hello.serverName != destination.host)
            refusal = QStringLiteral("the TLS server name %1 is not the CONNECT host %2").arg(hello.serverName, destination.host);
        break;
    case ClientHelloSni::Status::Absent:
        if (!destination.isLiteralAddress())
            refusal = QStringLiteral("the TLS ClientHello names no server; CONNECT named %1").arg(destination.host);
        break;
    case ClientHelloSni::Status::NotTls:
        refusal = QStringLiteral("the tunnel to %1 does not start with TLS").arg(destination.display());
        break;
    case ClientHelloSni::Status::Malformed:
        refusal = QStringLiteral("the tunnel to %1 starts with a malformed TLS ClientHello").arg(destination.display());
        break;
    }
    if (!refusal.isEmpty()) {
        // The client already has its 200: a refusal now can only close the tunnel.
        m_toServer.clear();
        return close(endWith(Outcome::Denied, refusal));
    }
    m_server->write(m_toServer);
    m_bytesSent += m_toServer.size();
    m_toServer.clear();
    m_phase = Phase::Relaying;
    relay();
}

void EgressConnection::relay()
{
    if (m_phase != Phase::Relaying)
        return;
    while (m_server->bytesAvailable() > 0 && m_client->bytesToWrite() < kHighWater) {
        const QByteArray bytes = m_server->read(kChunk);
        m_client->write(bytes);
        m_bytesReceived += bytes.size();
    }
    if (m_serverEnded) {
        // Everything the server sent reaches the client before the connection ends.
        if (m_server->bytesAvailable() == 0)
            close({});
        return;
    }
    if (m_phase != Phase::Relaying)
        return;
    while (m_client->bytesAvailable() > 0 && m_server->bytesToWrite() < kHighWater) {
        const QByteArray bytes = m_client->read(kChunk);
        if (m_reader.request().isConnect()) {
            m_server->write(bytes);
            m_bytesSent += bytes.size();
        } else if (m_reader.state() == HttpProxyRequestReader::State::Body) {
            // Only the request's own body; what follows it (a second request) is dropped.
            const auto fed = m_reader.feed(bytes);
            m_server->write(fed.body.data(), fed.body.size());
            m_bytesSent += fed.body.size();
            if (m_reader.state() == HttpProxyRequestReader::State::Error)
                return close(endWith(Outcome::Error, m_reader.errorText()));
        }
    }
}

void EgressConnection::clientGone()
{
    if (m_phase == Phase::Closing)
        return deleteWhenClosed();
    if (m_waiting) {
        m_waiting = false;
        m_proxy->withdraw(m_id, QStringLiteral("the program in the guest closed the connection"));
    }
    if (m_phase == Phase::Relaying) {
        relay();
        return close({});
    }
    close(endWith(Outcome::Cancelled, QStringLiteral("the program in the guest closed the connection")));
}

void EgressConnection::refuse(int status, const QString& reason, Outcome outcome)
{
    const QByteArray body = reason.toUtf8() + '\n';
    m_client->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) +
                    "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                    QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    startRow(); // also for an attempt the gate never saw (a malformed request)
    close(endWith(outcome, reason));
}

void EgressConnection::close(const ActionEnd& end)
{
    if (m_decided)
        startRow();
    if (m_row) {
        ActionEnd ended = end;
        ended.bytesSent = m_bytesSent;
        ended.bytesReceived = m_bytesReceived;
        ended.networkAddress = m_peerAddress;
        m_row->finish(ended);
        m_row.reset();
        m_rowDone = true;
    }
    if (m_phase == Phase::Closing)
        return;
    m_phase = Phase::Closing;
    // Both sides close after writing what they still hold; the connection goes when both did.
    if (m_server)
        m_server->disconnectFromHost();
    if (auto* local = qobject_cast<QLocalSocket*>(m_client))
        local->disconnectFromServer();
    else if (auto* socket = qobject_cast<QAbstractSocket*>(m_client))
        socket->disconnectFromHost();
    deleteWhenClosed();
}

void EgressConnection::deleteWhenClosed()
{
    const auto* local = qobject_cast<QLocalSocket*>(m_client);
    const auto* socket = qobject_cast<QAbstractSocket*>(m_client);
    const bool clientClosed = local ? local->state() == QLocalSocket::UnconnectedState
                                    : !socket || socket->state() == QAbstractSocket::UnconnectedState;
    if (clientClosed && (!m_server || m_server->state() == QAbstractSocket::UnconnectedState))
        deleteLater();
}

} // namespace sbw
