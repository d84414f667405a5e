#include "browser/CdpTunnel.h"

#include <QHostAddress>
#include <QLocalSocket>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>

namespace sbw {
namespace {

/// An upgrade request is a few hundred bytes; a client that sends more before the blank line
/// is not ours.
constexpr qsizetype kMaxRequestBytes = 16 * 1024;

QByteArray randomToken()
{
    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(bytes.data()), bytes.size() / 4);
    return bytes.toHex();
}

/// True when `request` (the header block, up to the blank line) has the header `name: value`.
bool hasHeader(const QByteArray& request, const QByteArray& name, const QByteArray& value)
{
    const QList<QByteArray> lines = request.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0 &&
            line.mid(colon + 1).trimmed() == value)
            return true;
    }
    return false;
}

} // namespace

CdpTunnel::CdpTunnel(int guestFd, const QByteArray& path, QObject* parent)
    : QObject(parent), m_server(new QTcpServer(this)), m_guest(new QLocalSocket(this)), m_path(path),
      m_token(randomToken())
{
    m_guest->setSocketDescriptor(guestFd);
    connect(m_guest, &QLocalSocket::disconnected, this,
            [this] { close(QStringLiteral("the browser in the guest closed its DevTools connection")); });
    connect(m_server, &QTcpServer::newConnection, this, &CdpTunnel::accept);
    m_server->setMaxPendingConnections(4);
    if (!m_server->listen(QHostAddress::LocalHost, 0))
        QMetaObject::invokeMethod(
            this, [this] { close(QStringLiteral("cannot listen on the host's loopback: %1").arg(m_server->errorString())); },
            Qt::QueuedConnection);
}

CdpTunnel::~CdpTunnel()
{
    m_closed = true; // no closed() from the sockets' destruction
    m_guest->disconnect(this);
    if (m_client)
        m_client->disconnect(this);
}

bool CdpTunnel::isListening() const
{
    return m_server->isListening();
}

QUrl CdpTunnel::url() const
{
    return QUrl(QStringLiteral("ws://127.0.0.1:%1%2").arg(m_server->serverPort()).arg(QString::fromLatin1(m_path)));
}

void CdpTunnel::accept()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        socket->setParent(this);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readRequest(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }
}

/// Waits for the whole header block of a connection, then relays it if it carries the token.
/// The guest sees nothing of a connection that does not.
void CdpTunnel::readRequest(QTcpSocket* socket)
{
    if (m_client)
        return socket->abort();
    const QByteArray seen = socket->peek(kMaxRequestBytes + 1);
    const qsizetype end = seen.indexOf("\r\n\r\n");
    if (end < 0) {
        if (seen.size() > kMaxRequestBytes)
            socket->abort();
        return;
    }
    if (!hasHeader(seen.left(end), kTokenHeader, m_token))
        return socket->abort();
    relay(socket);
}

void CdpTunnel::relay(QTcpSocket* socket)
{
    m_client = socket;
    m_server->close();
    socket->disconnect(this);
    connect(socket, &QTcpSocket::readyRead, this, [this] { m_guest->write(m_client->readAll()); });
    connect(m_guest, &QLocalSocket::readyRead, this, [this] { m_client->write(m_guest->readAll()); });
    connect(socket, &QTcpSocket::disconnected, this, [this] { close(QStringLiteral("the DevTools client went away")); });
    m_guest->write(socket->readAll());
    m_client->write(m_guest->readAll());
}

void CdpTunnel::close(const QString& reason)
{
    if (m_closed)
        return;
    m_closed = true;
    m_server->close();
    if (m_client)
        m_client->disconnectFromHost();
    m_guest->disconnectFromServer();
    Q_EMIT closed(reason);
}

} // namespace sbw
