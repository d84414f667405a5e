#include "guest/ChannelSocketPump.h"

#include <libssh/libssh.h>

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sbw {
namespace {

/// Bytes moved per direction and step; a step returns Busy while bytes move.
constexpr qsizetype kChunk = 64 * 1024;

} // namespace

ChannelSocketPump::ChannelSocketPump(SshSessionThread* loop, ssh_channel channel, int fd,
                                     std::shared_ptr<const std::atomic<bool>> stopping)
    : m_loop(loop), m_channel(channel), m_fd(fd), m_stopping(std::move(stopping))
{}

ChannelSocketPump::Step ChannelSocketPump::step(ssh_session)
{
    if (*m_stopping || ssh_channel_is_closed(m_channel))
        return finish();
    bool moved = false;
    if (!guestToHost(moved) || !hostToGuest(moved))
        return finish();
    if (m_guestEof && m_hostEof && m_toHost.isEmpty() && m_toGuest.isEmpty())
        return finish();
    short events = 0;
    if (m_toGuest.isEmpty() && !m_hostEof)
        events |= POLLIN;
    if (!m_toHost.isEmpty())
        events |= POLLOUT;
    m_loop->watch(m_fd, events);
    return moved ? Step::Busy : Step::Wait;
}

bool ChannelSocketPump::guestToHost(bool& moved)
{
    if (m_toHost.isEmpty() && !m_guestEof) {
        m_toHost.resize(kChunk);
        const int n = ssh_channel_read_nonblocking(m_channel, m_toHost.data(), uint32_t(kChunk), 0);
        m_toHost.resize(std::max(n, 0));
        if (n == SSH_ERROR)
            return false;
        if (n == SSH_EOF || (n == 0 && ssh_channel_is_eof(m_channel)))
            m_guestEof = true;
    }
    while (!m_toHost.isEmpty()) {
        const ssize_t sent = ::send(m_fd, m_toHost.constData(), size_t(m_toHost.size()),
                                    MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0)
            return errno == EAGAIN || errno == EINTR;
        m_toHost.remove(0, sent);
        moved = true;
    }
    if (m_guestEof && !m_hostShutdown) {
        ::shutdown(m_fd, SHUT_WR);
        m_hostShutdown = true;
    }
    return true;
}

bool ChannelSocketPump::hostToGuest(bool& moved)
{
    if (m_toGuest.isEmpty() && !m_hostEof) {
        m_toGuest.resize(kChunk);
        const ssize_t n = ::recv(m_fd, m_toGuest.data(), size_t(kChunk), MSG_DONTWAIT);
        m_toGuest.resize(std::max<ssize_t>(n, 0));
        if (n == 0)
            m_hostEof = true;
        else if (n < 0 && errno != EAGAIN && errno != EINTR)
            return false;
    }
    while (!m_toGuest.isEmpty()) {
        const qsizetype room = std::min<qsizetype>(m_toGuest.size(), ssh_channel_window_size(m_channel));
        const int sent = room > 0 ? ssh_channel_write(m_channel, m_toGuest.constData(), uint32_t(room)) : 0;
        if (sent == SSH_ERROR)
            return false;
        if (sent <= 0)
            break; // no window: the guest's window-adjust wakes the loop
        m_toGuest.remove(0, sent);
        moved = true;
    }
    if (m_hostEof && m_toGuest.isEmpty() && !m_guestEofSent) {
        ssh_channel_send_eof(m_channel);
        m_guestEofSent = true;
    }
    return true;
}

ChannelSocketPump::Step ChannelSocketPump::finish()
{
    if (m_fd >= 0) {
        m_loop->watch(m_fd, 0);
        ::close(m_fd);
        m_fd = -1;
    }
    if (m_channel) {
        ssh_channel_close(m_channel);
        ssh_channel_free(m_channel);
        m_channel = nullptr;
    }
    return Step::Done;
}

} // namespace sbw
