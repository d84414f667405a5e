#include "egress/EgressProxy.h"

#include "egress/EgressConnection.h"
#include "network/GuestEgress.h"

#include <QLocalSocket>
#include <QTcpServer>
#include <QTcpSocket>

#include <unistd.h>

namespace sbw {
namespace {

/// Hands each accepted socket to `serve` as a descriptor, so TCP clients take the same path as
/// guests' socket pairs up to the socket type.
class LoopbackListener : public QTcpServer
{
public:
    LoopbackListener(std::function<void(qintptr)> serve, QObject* parent)
        : QTcpServer(parent), m_serve(std::move(serve))
    {}

protected:
    void incomingConnection(qintptr descriptor) override { m_serve(descriptor); }

private:
    std::function<void(qintptr)> m_serve;
};

} // namespace

EgressProxy::EgressProxy(PolicyGate* gate, std::shared_ptr<CommandLog> log, QObject* parent)
    : QObject(parent), m_gate(gate), m_log(std::move(log)),
      m_connections(new QObject)
{
    m_thread.setObjectName(QStringLiteral("egress proxy"));
    m_connections->moveToThread(&m_thread);
    m_thread.start();
}

EgressProxy::~EgressProxy()
{
    if (m_acceptsGuestConnections) // guests' connections stop reaching a proxy that goes
        guest_egress::setAcceptor({});
    // Connections end on their own thread (their sockets live there), then the thread.
    QMetaObject::invokeMethod(
        m_connections, [root = m_connections] { qDeleteAll(root->children()); }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    delete m_connections;
    const auto waiting = std::exchange(m_waiting, {});
    for (const auto& withdrawal : waiting) {
        if (withdrawal)
            withdrawal->withdraw(QStringLiteral("the workbench closed the connection"));
    }
}

void EgressProxy::serve(int fd, const QString& sandbox, quint16 guestSourcePort)
{
    QMetaObject::invokeMethod(
        m_connections,
        [this, fd, sandbox, guestSourcePort] {
            auto* socket = new QLocalSocket;
            if (!socket->setSocketDescriptor(fd, QLocalSocket::ConnectedState, QIODevice::ReadWrite)) {
                ::close(fd);
                delete socket;
                return;
            }
            auto* connection = new EgressConnection(this, socket, sandbox, guestSourcePort, m_connections);
            connect(socket, &QLocalSocket::disconnected, connection, &EgressConnection::clientGone);
            connection->start();
        },
        Qt::QueuedConnection);
}

void EgressProxy::acceptGuestConnections()
{
    m_acceptsGuestConnections = true;
    guest_egress::setAcceptor([this](const QString& sandbox, int fd, quint16 sourcePort) { serve(fd, sandbox, sourcePort); });
}

quint16 EgressProxy::listenOnLoopback(const QString& sandbox)
{
    quint16 port = 0;
    QMetaObject::invokeMethod(
        m_connections,
        [this, sandbox, &port] {
            auto* listener = new LoopbackListener(
                [this, sandbox](qintptr descriptor) {
                    auto* socket = new QTcpSocket;
                    socket->setSocketDescriptor(descriptor);
                    auto* connection = new EgressConnection(this, socket, sandbox, 0, m_connections);
                    connect(socket, &QTcpSocket::disconnected, connection, &EgressConnection::clientGone);
                    connection->start();
                },
                nullptr);
            // Not a child of m_connections: the destructor's sweep ends connections only.
            connect(&m_thread, &QThread::finished, listener, [listener] { delete listener; });
            if (listener->listen(QHostAddress::LocalHost, 0))
                port = listener->serverPort();
        },
        Qt::BlockingQueuedConnection);
    return port;
}

void EgressProxy::decide(qint64 id, const ActionRequest& request, std::function<void(const GateDecision&)> done)
{
    QMetaObject::invokeMethod(
        this,
        [this, id, request, done = std::move(done)] {
            auto* withdrawal = new ActionWithdrawal(this);
            m_waiting.insert(id, withdrawal);
            ActionRequest asked = request;
            asked.withdrawal = withdrawal;
            m_gate->decide(asked, [self = QPointer(this), id, withdrawal, done](const GateDecision& decision) {
                if (self) {
                    self->m_waiting.remove(id);
                    withdrawal->deleteLater();
                }
                done(decision);
            });
        },
        Qt::QueuedConnection);
}

void EgressProxy::withdraw(qint64 id, const QString& reason)
{
    QMetaObject::invokeMethod(
        this,
        [this, id, reason] {
            if (QPointer<ActionWithdrawal> withdrawal = m_waiting.value(id))
                withdrawal->withdraw(reason);
        },
        Qt::QueuedConnection);
}

void EgressProxy::checkAddresses(const ActionRequest& request, std::function<void(std::optional<QString>)> done)
{
    QMetaObject::invokeMethod(
        this, [this, request, done = std::move(done)] { done(m_gate->policy().refusedAddress(request)); },
        Qt::QueuedConnection);
}

} // namespace sbw
