#pragma once

#include "action/ActionGate.h"
#include "log/CommandLog.h"
#include "network/HttpProxyRequest.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QObject>

#include <functional>
#include <memory>

class QIODevice;
class QTcpSocket;

namespace sbw {

class EgressProxy;
class LoggedAction;
template <typename T>
class PostBack;

/// One client connection of the EgressProxy, on the proxy's thread, from the request to the
/// end of the reply or tunnel: read the request → the gate judges the destination → resolve
/// the name → refuse special-purpose addresses no rule names → connect → (CONNECT) check the
/// ClientHello's server name → relay both ways, each within the other side's pace. Deletes
/// itself when done.
class EgressConnection : public QObject
{
    Q_OBJECT

public:
    /// `client` is connected and parented to nobody yet; the connection takes it. Its
    /// `disconnected` signal must be connected to clientGone() by the caller (the socket types
    /// differ: a socket pair's end or a TCP socket).
    /// `findProgram`: names the guest program (guest_egress::Connection), or empty.
    EgressConnection(EgressProxy* proxy, QIODevice* client, QString sandbox, quint16 guestSourcePort,
                     std::function<QString()> findProgram, QObject* parent);
    ~EgressConnection() override;

    void start();
    void clientGone();

private:
    enum class Phase
    {
        Request,    ///< reading the request head
        Judging,    ///< the gate decides; the client's further bytes wait in its socket
        Resolving,
        Connecting,
        ServerHello, ///< CONNECT: reading the ClientHello before anything reaches the server
        Relaying,
        Closing,
    };

    void readClient();
    void judge();
    void decided(const GateDecision& decision);
    /// Writes the connection's row, once (the gate writes the row of a refusal): when the
    /// connection reaches for the server, or ends before that.
    void startRow();
    void resolve();
    void resolved(const QList<QHostAddress>& addresses, const QString& error);
    /// A name a person allowed once leads to a loopback, private or other special-purpose
    /// address (`refusal` says which): they could not see that when they decided, so they are
    /// asked again with the address shown. A rule's allowance never reaches such an address;
    /// only a rule naming the host or range does (Policy::refusedAddress()).
    void askAboutAddress(const QString& refusal);
    void addressDecided(const GateDecision& decision);
    void connectServer();
    void serverConnected();
    void checkClientHello();
    void relay();
    /// Sends `status` with `reason` as a plain-text body, ends the row and closes.
    void refuse(int status, const QString& reason, Outcome outcome);
    /// Ends the row with `end` (once) and closes both sides after their pending bytes.
    void close(const ActionEnd& end);
    /// Deletes the connection once both sockets are closed.
    void deleteWhenClosed();

    EgressProxy* m_proxy;
    QIODevice* m_client;
    QTcpSocket* m_server = nullptr;
    QString m_sandbox;
    quint16 m_guestSourcePort;
    std::function<QString()> m_findProgram;
    qint64 m_id;
    Phase m_phase = Phase::Request;
    HttpProxyRequestReader m_reader;
    ActionRequest m_request;
    GateDecision m_decision;
    QByteArray m_toServer; ///< read from the client before the server was connected
    QList<QHostAddress> m_addresses; ///< resolved addresses not yet tried
    QString m_peerAddress;           ///< the server's address once connected
    std::unique_ptr<LoggedAction> m_row;
    std::shared_ptr<PostBack<EgressConnection>> m_postBack;
    QElapsedTimer m_timer;
    qint64 m_bytesSent = 0;     ///< client → server
    qint64 m_bytesReceived = 0; ///< server → client
    bool m_waiting = false;     ///< asked the gate and not yet decided
    bool m_decided = false;     ///< the gate allowed the connection
    bool m_rowDone = false;     ///< its row was written and ended (by close(), or by the gate: a refusal)
    bool m_askedAboutAddress = false; ///< askAboutAddress() asked already
    bool m_serverEnded = false; ///< the server closed; its last bytes are still being relayed
};

} // namespace sbw
