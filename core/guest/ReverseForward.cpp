#include "guest/ReverseForward.h"

#include "base/Logging.h"
#include "guest/SshSessionThread.h"

#include <libssh/libssh.h>

#include <atomic>
#include <cerrno>
#include <future>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sbw {
namespace {

/// Bytes moved per direction and step; a step returns Busy while bytes move.
constexpr qsizetype kChunk = 64 * 1024;
/// Steps a stopping listener waits for the guest to confirm the cancel before it gives up.
constexpr int kCancelSteps = 20;

QString sshError(ssh_session session)
{
    return QString::fromUtf8(ssh_get_error(session));
}

} // namespace

struct ReverseForward::Shared
{
    std::atomic<bool> stopping{false};
    std::promise<Expected<quint16>> bound;
    Accept accept;
};

/// Moves bytes between one forwarded-tcpip channel and the guest-side end of a socket pair,
/// each direction within the other side's room (the peer's SSH window, the socket's buffer),
/// and passes each side's EOF to the other. Done when both directions ended or either broke.
class ReverseForward::ConnectionJob : public SshSessionThread::Job
{
public:
    ConnectionJob(std::shared_ptr<Shared> shared, SshSessionThread* loop, ssh_channel channel, int fd)
        : m_shared(std::move(shared)), m_loop(loop), m_channel(channel), m_fd(fd)
    {}

    Step step(ssh_session) override
    {
        if (m_shared->stopping || ssh_channel_is_closed(m_channel))
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

    void fail(const QString&) override { finish(); }

private:
    /// False when the connection is over (the host end went away, or the channel broke).
    bool guestToHost(bool& moved)
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

    bool hostToGuest(bool& moved)
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

    Step finish()
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

    std::shared_ptr<Shared> m_shared;
    SshSessionThread* m_loop; ///< the loop stepping this job (a shared_ptr would keep it alive)
    ssh_channel m_channel;
    int m_fd;
    QByteArray m_toHost;  ///< read from the channel, not yet written to the socket
    QByteArray m_toGuest; ///< read from the socket, not yet within the guest's window
    bool m_guestEof = false;
    bool m_hostShutdown = false;
    bool m_hostEof = false;
    bool m_guestEofSent = false;
};

/// Asks sshd to listen (tcpip-forward), then accepts its forwarded-tcpip channels, each handed
/// to a ConnectionJob and the host; on stop, asks sshd to stop listening (cancel-tcpip-forward).
class ReverseForward::ListenJob : public SshSessionThread::Job
{
public:
    ListenJob(std::shared_ptr<Shared> shared, SshSessionThread* loop, quint16 port)
        : m_shared(std::move(shared)), m_loop(loop), m_port(port)
    {}

    Step step(ssh_session session) override
    {
        if (!m_listening)
            return listen(session);
        if (m_shared->stopping)
            return cancel(session);
        int port = 0;
        char* originator = nullptr;
        int originatorPort = 0;
        while (ssh_channel channel =
                   ssh_channel_open_forward_port(session, 0, &port, &originator, &originatorPort)) {
            ssh_string_free_char(originator);
            originator = nullptr;
            accept(channel, quint16(originatorPort));
        }
        return Step::Wait;
    }

    void fail(const QString& reason) override
    {
        if (!m_listening)
            m_shared->bound.set_value(makeError(reason));
        m_listening = true;
    }

private:
    Step listen(ssh_session session)
    {
        int bound = 0;
        const int rc = ssh_channel_listen_forward(session, "127.0.0.1", m_port, &bound);
        if (rc == SSH_AGAIN)
            return Step::Wait;
        m_listening = true;
        if (rc != SSH_OK) {
            m_shared->bound.set_value(makeError(QStringLiteral("the guest refused to listen on 127.0.0.1:%1: %2")
                                                    .arg(m_port)
                                                    .arg(sshError(session))));
            return Step::Done;
        }
        m_shared->bound.set_value(quint16(m_port != 0 ? m_port : bound));
        return Step::Wait;
    }

    Step cancel(ssh_session session)
    {
        const int rc = ssh_channel_cancel_forward(session, "127.0.0.1", m_port);
        return rc == SSH_AGAIN && ++m_cancelSteps < kCancelSteps ? Step::Wait : Step::Done;
    }

    void accept(ssh_channel channel, quint16 sourcePort)
    {
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
            qCWarning(lcChannel) << "cannot pass a forwarded connection to the host:" << strerror(errno);
            ssh_channel_close(channel);
            ssh_channel_free(channel);
            return;
        }
        m_loop->add(std::make_shared<ConnectionJob>(m_shared, m_loop, channel, pair[0]));
        m_shared->accept(pair[1], sourcePort);
    }

    std::shared_ptr<Shared> m_shared;
    SshSessionThread* m_loop; ///< the loop stepping this job
    quint16 m_port;
    bool m_listening = false;
    int m_cancelSteps = 0;
};

Expected<std::unique_ptr<ReverseForward>> ReverseForward::listen(std::shared_ptr<SshSessionThread> loop,
                                                                 quint16 port, Accept accept)
{
    auto shared = std::make_shared<Shared>();
    shared->accept = std::move(accept);
    auto bound = shared->bound.get_future();
    loop->add(std::make_shared<ListenJob>(shared, loop.get(), port));
    Expected<quint16> result = bound.get();
    if (!result)
        return result.error();
    return std::unique_ptr<ReverseForward>(new ReverseForward(std::move(loop), std::move(shared), result.value()));
}

ReverseForward::ReverseForward(std::shared_ptr<SshSessionThread> loop, std::shared_ptr<Shared> shared, quint16 port)
    : m_loop(std::move(loop)), m_shared(std::move(shared)), m_port(port)
{}

ReverseForward::~ReverseForward()
{
    m_shared->stopping = true;
    m_loop->wake();
}

} // namespace sbw
