#pragma once

#include "base/Expected.h"

#include <QtGlobal>

#include <functional>
#include <memory>

namespace sbw {

class SshSessionThread;

/// A TCP port on the guest's loopback whose connections come to the host through the sandbox's
/// SSH session (a remote port forward, RFC 4254 §7.1, `ssh -R`): sshd in the guest listens on
/// 127.0.0.1:port; each connection a guest program opens there arrives as a "forwarded-tcpip"
/// channel, which this object hands to the host as one end of a socket pair. The guest needs
/// no network interface for it, and it works the same over a remote libvirt connection.
///
/// Made by GuestSession::listenForward(). One per session: a second one would take the
/// other's connections. Destroying it stops listening (waiting, a few seconds at most, until the
/// guest's sshd confirms, so the port is free afterwards) and closes its connections.
class ReverseForward
{
public:
    /// Called on the session's I/O thread for each connection, with a connected nonblocking
    /// AF_UNIX stream socket the callee owns: bytes written to it reach the guest program, its
    /// EOF (shutdown or close) is the program's EOF, and bytes the program sends are read from
    /// it. `sourcePort` is the guest program's end of its connection (its port on 127.0.0.1),
    /// by which the guest can name the program. Must not block or call back into the session;
    /// post the fd to its thread.
    using Accept = std::function<void(int fd, quint16 sourcePort)>;

    ~ReverseForward();
    ReverseForward(const ReverseForward&) = delete;
    ReverseForward& operator=(const ReverseForward&) = delete;

    /// The port sshd listens on, on the guest's 127.0.0.1.
    quint16 port() const { return m_port; }

private:
    friend class GuestSession;
    struct Shared;
    class ListenJob;

    /// Blocks until the guest's sshd listens (one round trip) or refused. Errors: "the guest
    /// refused to listen on 127.0.0.1:PORT: …" (port taken, forwarding disabled), the session
    /// broke.
    static Expected<std::unique_ptr<ReverseForward>> listen(std::shared_ptr<SshSessionThread> loop,
                                                            quint16 port, Accept accept);
    ReverseForward(std::shared_ptr<SshSessionThread> loop, std::shared_ptr<Shared> shared, quint16 port);

    std::shared_ptr<SshSessionThread> m_loop;
    std::shared_ptr<Shared> m_shared;
    quint16 m_port = 0;
};

} // namespace sbw
