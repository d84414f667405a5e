#include "egress/EgressProxy.h"

#include "base/Async.h"
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

void EgressProxy::serve(guest_egress::Connection guest)
{
    QMetaObject::invokeMethod(
        m_connections,
        [this, guest = std::move(guest)] {
            auto* socket = new QLocalSocket;
            if (!socket->setSocketDescriptor(guest.fd, QLocalSocket::ConnectedState, QIODevice::ReadWrite)) {
                ::close(guest.fd);
                delete socket;
                return;
            }
            auto* connection = new EgressConnection(this, socket, guest.sandbox, guest.sourcePort,
                                                    guest.findProgram, m_connections);
            connect(socket, &QLocalSocket::disconnected, connection, &EgressConnection::clientGone);
            connection->start();
        },
        Qt::QueuedConnection);
}

void EgressProxy::acceptGuestConnections()
{
    m_acceptsGuestConnections = true;
    guest_egress::setAcceptor([this](guest_egress::Connection connection) { serve(std::move(connection)); });
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
                    auto* connection = new EgressConnection(this, socket, sandbox, 0, {}, m_connections);
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

void EgressProxy::decide(qint64 id, const ActionRequest& request, std::function<QString()> findProgram,
                         Decided done)
{
    QMetaObject::invokeMethod(
        this,
        [this, id, request, findProgram = std::move(findProgram), done = std::move(done)] {
            auto* withdrawal = new ActionWithdrawal(this);
            m_waiting.insert(id, withdrawal);
            ActionRequest asked = request;
            asked.withdrawal = withdrawal;
            // A person is asked: name the guest program for them first (a command in the guest,
            // so only then). The client may leave meanwhile; then nobody is asked.
            if (!findProgram || !m_gate->asksPerson(request))
                return ask(id, asked, done);
            runThen(this, findProgram, [this, id, asked, done](const QString& program) mutable {
                if (asked.withdrawal->isWithdrawn()) {
                    m_waiting.remove(id);
                    asked.withdrawal->deleteLater();
                    return;
                }
                if (!program.isEmpty())
                    asked.actor.name = program;
                ask(id, asked, done);
            });
        },
        Qt::QueuedConnection);
}

void EgressProxy::ask(qint64 id, const ActionRequest& request, Decided done)
{
    QPointer<ActionWithdrawal> withdrawal = request.withdrawal;
    m_gate->decide(request, [self = QPointer(this), id, withdrawal, actor = request.actor,
                             done](const GateDecision& decision) {
        if (self) {
            self->m_waiting.remove(id);
            if (withdrawal)
                withdrawal->deleteLater();
        }
        done(decision, actor);
    });
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
