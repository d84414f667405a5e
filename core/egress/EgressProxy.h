#pragma once

#include "action/ActionGate.h"
#include "approval/PolicyGate.h"
#include "network/GuestEgress.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>

#include <functional>
#include <memory>
#include <optional>

class QTcpServer;

namespace sbw {

class CommandLog;

/// The host side of a sandbox's network in allowlist mode: an HTTP proxy (CONNECT for TLS,
/// absolute-URI requests for plain HTTP) that the guest reaches only through its SSH session
/// (ReverseForward), so nothing in the guest can go around it.
///
/// Each connection serves one request. Its destination is judged by the action gate like an
/// agent's action (ActionKind::Network: the policy's network rules allow, deny or ask a
/// person), before anything about it is looked up; an allowed name is then resolved on the
/// host and refused when it leads to a loopback, private or other special-purpose address no
/// rule names (Policy::refusedAddress()); a CONNECT tunnel carries only a TLS ClientHello whose server
/// name is the CONNECT host (no domain fronting). Refusals answer HTTP 403 with the reason as
/// the body; every attempt is a command-log row of kind network (denials are the gate's rows).
///
/// Threads: the proxy object lives on the gate's thread, where it asks the gate; connections
/// move bytes on the proxy's own thread. serve() is thread-safe. Destroy every ReverseForward
/// that feeds it first: the destructor closes open connections (their rows end as errors:
/// "the workbench closed the connection").
class EgressProxy : public QObject
{
    Q_OBJECT

public:
    /// `gate` (whose policy also judges resolved addresses) and `log` (may be null) must
    /// outlive the proxy.
    EgressProxy(PolicyGate* gate, std::shared_ptr<CommandLog> log, QObject* parent = nullptr);
    ~EgressProxy() override;

    /// Serves one guest connection (GuestEgress): its socket is the proxy's from now on; its
    /// program is looked up (Connection::findProgram) only when a person is asked about it.
    /// Thread-safe.
    void serve(guest_egress::Connection connection);

    /// Makes this the process's egress proxy: the guests of this process's allowlist sandboxes
    /// reach it (guest_egress::setAcceptor()) until the proxy is destroyed. One per process.
    void acceptGuestConnections();

    /// Serves connections to a TCP port on the host's 127.0.0.1 as sandbox `sandbox`, for tests
    /// and benchmarks (a guest never reaches it). Returns the port; 0 when listening failed.
    quint16 listenOnLoopback(const QString& sandbox);

private:
    friend class EgressConnection;
    /// The gate's decision and the request's actor as the gate saw it (a guest program named).
    using Decided = std::function<void(const GateDecision& decision, const Actor& actor)>;
    /// From a connection's thread: asks the gate about `request` on this object's thread and
    /// calls `done` there with the decision (the caller posts it back to itself). `id` names
    /// the request for withdraw(). When the policy asks a person, `findProgram` (may be empty)
    /// names the guest program in the request's actor first, off this thread.
    void decide(qint64 id, const ActionRequest& request, std::function<QString()> findProgram, Decided done);
    /// decide()'s last step, on this object's thread: the gate decides `request`, whose
    /// withdrawal is in m_waiting under `id`.
    void ask(qint64 id, const ActionRequest& request, Decided done);
    /// From a connection's thread: takes request `id` back while it waits for a person (the
    /// client went away). Does nothing once it was decided.
    void withdraw(qint64 id, const QString& reason);
    /// From a connection's thread: `done(refusal)` on this object's thread, with the policy's
    /// refusal of the resolved addresses (Policy::refusedAddress()), if any.
    void checkAddresses(const ActionRequest& request, std::function<void(std::optional<QString>)> done);

    PolicyGate* m_gate;
    std::shared_ptr<CommandLog> m_log;
    QHash<qint64, QPointer<ActionWithdrawal>> m_waiting; ///< decide()'s requests not yet decided
    QThread m_thread;
    QObject* m_connections; ///< lives on m_thread; parent of every connection
    bool m_acceptsGuestConnections = false; ///< acceptGuestConnections() was called
};

} // namespace sbw
