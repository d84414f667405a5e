#pragma once

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QUrl>

class QLocalSocket;
class QTcpServer;
class QTcpSocket;

namespace sbw {

/// Carries one WebSocket connection from this process to a server inside a guest: QWebSocket
/// connects only to TCP addresses, and the guest's DevTools port is reached through the SSH
/// session (GuestSession::connectForward()), so the tunnel listens on the host's 127.0.0.1 on
/// a port the kernel picks and relays the first connection that proves it comes from this
/// process to the guest's socket.
///
/// The proof is a random token in the upgrade request's `X-Sbw-Tunnel` header (url() and
/// token() are handed to the one client that may use them): other programs of the host's
/// users can reach the port, but without the token their connection is closed before a byte
/// reaches the guest. After the first proven connection the tunnel stops listening.
///
/// Lives on the thread that made it; emits closed() once either side ends.
class CdpTunnel : public QObject
{
    Q_OBJECT
public:
    /// Header that carries the token.
    static inline const QByteArray kTokenHeader = QByteArrayLiteral("X-Sbw-Tunnel");

    /// Takes ownership of `guestFd` (from GuestSession::connectForward()) and listens.
    /// `path`: the WebSocket path url() carries ("/devtools/browser/<id>").
    CdpTunnel(int guestFd, const QByteArray& path, QObject* parent = nullptr);
    ~CdpTunnel() override;

    /// False when the host refused a loopback port (then closed() follows at once).
    bool isListening() const;
    QUrl url() const;       ///< ws://127.0.0.1:PORT/PATH
    QByteArray token() const { return m_token; }

Q_SIGNALS:
    /// Either side closed or broke; `reason` says which. Emitted once.
    void closed(const QString& reason);

private:
    void accept();
    void readRequest(QTcpSocket* socket);
    void relay(QTcpSocket* socket);
    void close(const QString& reason);

    QTcpServer* m_server;
    QLocalSocket* m_guest;
    QPointer<QTcpSocket> m_client; ///< the proven connection, once there is one
    QByteArray m_path;
    QByteArray m_token;
    bool m_closed = false;
};

} // namespace sbw
