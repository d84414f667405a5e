#include "guest/DirectTcpip.h"

#include "guest/ChannelSocketPump.h"
#include "guest/SshSessionThread.h"

#include <libssh/libssh.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <sys/socket.h>

namespace sbw {
namespace {

/// Opens the channel (nonblocking: stepped until the guest answers), then hands it to a
/// ChannelSocketPump and the socket pair's other end to the caller.
class OpenJob : public SshSessionThread::Job
{
public:
    OpenJob(SshSessionThread* loop, quint16 port) : m_loop(loop), m_port(port) {}

    std::future<Expected<int>> result() { return m_result.get_future(); }

    Step step(ssh_session session) override
    {
        if (!m_channel && !(m_channel = ssh_channel_new(session)))
            return finish(makeError(QStringLiteral("cannot open an SSH channel: %1").arg(ssh_get_error(session))));
        const int rc = ssh_channel_open_forward(m_channel, "127.0.0.1", m_port, "127.0.0.1", 0);
        if (rc == SSH_AGAIN)
            return Step::Wait;
        if (rc != SSH_OK)
            return finish(makeError(QStringLiteral("nothing listens on 127.0.0.1:%1 in the guest (%2)")
                                        .arg(m_port)
                                        .arg(QString::fromUtf8(ssh_get_error(session)))));
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0)
            return finish(makeError(QStringLiteral("cannot make a socket pair: %1").arg(strerror(errno))));
        static const auto kNeverStops = std::make_shared<const std::atomic<bool>>(false);
        m_loop->add(std::make_shared<ChannelSocketPump>(m_loop, m_channel, pair[0], kNeverStops));
        m_channel = nullptr;
        m_result.set_value(pair[1]);
        return Step::Done;
    }

    void fail(const QString& reason) override { finish(makeError(reason)); }

private:
    Step finish(Expected<int> result)
    {
        if (m_channel) {
            ssh_channel_free(m_channel);
            m_channel = nullptr;
        }
        m_result.set_value(std::move(result));
        return Step::Done;
    }

    SshSessionThread* m_loop;
    quint16 m_port;
    ssh_channel m_channel = nullptr;
    std::promise<Expected<int>> m_result;
};

} // namespace

Expected<int> openDirectTcpip(const std::shared_ptr<SshSessionThread>& loop, quint16 port)
{
    auto job = std::make_shared<OpenJob>(loop.get(), port);
    auto result = job->result();
    loop->add(job);
    return result.get();
}

} // namespace sbw
