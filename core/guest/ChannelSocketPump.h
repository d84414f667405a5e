#pragma once

#include "guest/SshSessionThread.h"

#include <QByteArray>

#include <atomic>
#include <memory>

struct ssh_channel_struct;

namespace sbw {

/// Moves bytes between one SSH channel (a forwarded-tcpip or direct-tcpip connection) and one
/// end of a socket pair whose other end a host object holds, each direction within the other
/// side's room (the peer's SSH window, the socket's buffer), and passes each side's EOF to
/// the other. Done when both directions ended, either broke, or `stopping` became true; it
/// then closes the socket and frees the channel.
///
/// Internal to ReverseForward and GuestSession::connectForward(); stepped on the session's
/// I/O thread.
class ChannelSocketPump : public SshSessionThread::Job
{
public:
    /// Takes ownership of `channel` (open) and `fd` (nonblocking, connected).
    ChannelSocketPump(SshSessionThread* loop, ssh_channel_struct* channel, int fd,
                      std::shared_ptr<const std::atomic<bool>> stopping);

    Step step(ssh_session_struct* session) override;
    void fail(const QString&) override { finish(); }

private:
    bool guestToHost(bool& moved); ///< false when the connection is over
    bool hostToGuest(bool& moved); ///< false when the connection is over
    Step finish();

    SshSessionThread* m_loop; ///< the loop stepping this job (a shared_ptr would keep it alive)
    ssh_channel_struct* m_channel;
    int m_fd;
    std::shared_ptr<const std::atomic<bool>> m_stopping;
    QByteArray m_toHost;  ///< read from the channel, not yet written to the socket
    QByteArray m_toGuest; ///< read from the socket, not yet within the guest's window
    bool m_guestEof = false;
    bool m_hostShutdown = false;
    bool m_hostEof = false;
    bool m_guestEofSent = false;
};

} // namespace sbw
