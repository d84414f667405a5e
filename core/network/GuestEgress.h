#pragma once

#include <QByteArray>
#include <QString>

#include <functional>

namespace sbw {

/// How a sandbox with the allowlist network (a workspace, or an ephemeral run) reaches the
/// network: its guest has no interface; programs in it use an HTTP proxy at
/// 127.0.0.1:kGuestPort in the guest, where the guest's sshd listens for the workbench
/// (GuestSession::listenForward) and hands each connection to the process's egress proxy
/// (EgressProxy::serve).
///
/// The process that runs an egress proxy (the window, `sbw serve`, `sbw mcp`, `sbw run
/// --network allowlist`) sets the acceptor once; every Workspace of that process then asks for
/// the forward when it opens its SSH session, and so does an allowlist run. Without an acceptor (a plain `sbw ws exec`), no forward is made: if no other
/// process of the workbench serves the workspace, its programs find nothing on the port and
/// have no network at all — it fails closed.
namespace guest_egress {

/// The proxy's port on the guest's loopback.
inline constexpr quint16 kGuestPort = 3128;

/// One connection a guest program opened to the proxy's port.
struct Connection
{
    QString sandbox;        ///< a workspace's name, or a run's domain
    int fd = -1;            ///< the host end: a connected socket the receiver owns
    quint16 sourcePort = 0; ///< the program's port on the guest's loopback; 0 when unknown
    /// Names the program that opened the connection (GuestProgram::actorName()), or returns
    /// an empty string when it cannot be found. Runs a command in the guest (up to 10 s): call it
    /// from a worker thread, and only when a person will be asked. Empty when no lookup exists.
    std::function<QString()> findProgram;
};

/// Receives one guest connection. Called on an SSH I/O thread; must not block.
using Acceptor = std::function<void(Connection connection)>;

/// Sets (or, with an empty function, clears) this process's acceptor. Thread-safe; once it
/// returned, the earlier acceptor is not running and is never called again.
void setAcceptor(Acceptor acceptor);
/// Whether this process serves a proxy. Thread-safe.
bool hasAcceptor();
/// Hands a guest connection to the acceptor, or closes its fd when there is none. Thread-safe.
void accept(Connection connection);

/// The shell lines that point every proxy-aware program at the proxy: HTTP_PROXY,
/// HTTPS_PROXY, http_proxy, https_proxy (curl, pip, apt, git, npm read them) and
/// NO_PROXY/no_proxy=localhost,127.0.0.1 (the guest's own services stay direct).
QByteArray exportLines();

} // namespace guest_egress
} // namespace sbw
