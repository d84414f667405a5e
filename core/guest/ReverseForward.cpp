#include "guest/ReverseForward.h"

#include "base/Logging.h"
#include "guest/ChannelSocketPump.h"
#include "guest/SshSessionThread.h"

#include <libssh/libssh.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <future>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sbw {
namespace {

/// Steps a stopping listener waits for the guest to confirm the cancel before it gives up.
constexpr int kCancelSteps = 20;
/// Longest a destroyed listener waits for that (the loop's idle polls bound the steps above).
constexpr auto kReleaseWait = std::chrono::seconds(3);

QString sshError(ssh_session session)
{
    return QString::fromUtf8(ssh_get_error(session));
}

} // namespace

struct ReverseForward::Shared
{
    std::atomic<bool> stopping{false};
    std::promise<Expected<quint16>> bound;
    std::promise<void> released; ///< sshd no longer listens (or the session ended)
    std::atomic<bool> releasedSet{false};
    Accept accept;

    void release()
    {
        if (!releasedSet.exchange(true))
            released.set_value();
    }
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
        m_shared->release();
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
            m_shared->release();
            return Step::Done;
        }
        m_shared->bound.set_value(quint16(m_port != 0 ? m_port : bound));
        return Step::Wait;
    }

    Step cancel(ssh_session session)
    {
        const int rc = ssh_channel_cancel_forward(session, "127.0.0.1", m_port);
        if (rc == SSH_AGAIN && ++m_cancelSteps < kCancelSteps)
            return Step::Wait;
        m_shared->release();
        return Step::Done;
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
        m_loop->add(std::make_shared<ChannelSocketPump>(m_loop, channel, pair[0], std::shared_ptr<const std::atomic<bool>>(m_shared, &m_shared->stopping)));
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
    // Waits for sshd's answer to the cancel, so that the port is free when this returns: another
    // session of the same guest (Workspace::listenForEgress) may ask for it next.
    if (!m_loop->onLoopThread())
        m_shared->released.get_future().wait_for(kReleaseWait);
}

} // namespace sbw
