#pragma once

#include "base/Expected.h"

#include <QtGlobal>

#include <memory>

namespace sbw {

class SshSessionThread;

/// Opens a connection to 127.0.0.1:`port` in the guest through the SSH session (a
/// "direct-tcpip" channel, RFC 4254 §7.2, `ssh -L`): the guest's sshd connects to its own
/// loopback, so the guest needs no network interface, and the port stays unreachable from
/// anywhere but the guest and this session. Returns the host's end of a nonblocking AF_UNIX
/// stream socket (the caller owns it): bytes written to it reach the guest's server, its EOF
/// is the server's EOF. Closing it ends the connection. Blocks for one round trip; must not be
/// called on the session's I/O thread.
/// Errors: "nothing listens on 127.0.0.1:PORT in the guest (…)", the session broke.
/// Internal to GuestSession (GuestSession::connectForward()).
Expected<int> openDirectTcpip(const std::shared_ptr<SshSessionThread>& loop, quint16 port);

} // namespace sbw
