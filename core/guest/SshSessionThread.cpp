#include "guest/SshSessionThread.h"

#include "base/Logging.h"

#include <libssh/libssh.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sbw {
namespace {

/// Longest sleep of an idle loop: timeouts and cancel flags of execs are checked this often.
constexpr int kIdlePollMs = 100;

int drainWakeFd(socket_t fd, int, void*)
{
    eventfd_t value;
    eventfd_read(fd, &value);
    return 0;
}

/// A watched fd is ready: nothing to do here, the loop steps every job after each poll.
int noteReady(socket_t, int, void*)
{
    return 0;
}

} // namespace

SshSessionThread::SshSessionThread(ssh_session session) : m_session(session)
{
    ssh_set_blocking(m_session, 0);
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    m_event = ssh_event_new();
    ssh_event_add_session(m_event, m_session);
    ssh_event_add_fd(m_event, m_wakeFd, POLLIN, drainWakeFd, nullptr);
    m_thread = std::thread([this] { run(); });
}

SshSessionThread::~SshSessionThread()
{
    stop();
}

void SshSessionThread::add(std::shared_ptr<Job> job)
{
    QString endReason;
    {
        std::lock_guard lock(m_mutex);
        if (m_endReason.isEmpty()) {
            m_incoming.push_back(std::move(job));
        } else {
            endReason = m_endReason;
        }
    }
    if (endReason.isEmpty())
        wake();
    else
        job->fail(endReason);
}

bool SshSessionThread::hasEnded()
{
    std::lock_guard lock(m_mutex);
    return !m_endReason.isEmpty();
}

void SshSessionThread::wake()
{
    eventfd_write(m_wakeFd, 1);
}

void SshSessionThread::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    if (m_thread.joinable()) {
        wake();
        m_thread.join();
    }
    if (m_wakeFd >= 0) {
        ::close(m_wakeFd);
        m_wakeFd = -1;
    }
}

bool SshSessionThread::onLoopThread() const
{
    return std::this_thread::get_id() == m_thread.get_id();
}

void SshSessionThread::watch(int fd, short events)
{
    Q_ASSERT(onLoopThread());
    const auto it = m_watched.find(fd);
    const short before = it == m_watched.end() ? 0 : it->second;
    if (before == events)
        return;
    if (before != 0)
        ssh_event_remove_fd(m_event, fd);
    if (events != 0) {
        ssh_event_add_fd(m_event, fd, events, noteReady, nullptr);
        m_watched[fd] = events;
    } else {
        m_watched.erase(fd);
    }
}

void SshSessionThread::failAll(std::vector<std::shared_ptr<Job>>& jobs, const QString& reason)
{
    for (const auto& job : jobs)
        job->fail(reason);
    jobs.clear();
}

void SshSessionThread::run()
{
    std::vector<std::shared_ptr<Job>> jobs;
    QString reason = QStringLiteral("the guest session was closed");
    for (;;) {
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                break;
            for (auto& job : m_incoming)
                jobs.push_back(std::move(job));
            m_incoming.clear();
        }
        bool busy = false;
        for (auto it = jobs.begin(); it != jobs.end();) {
            const Job::Step step = (*it)->step(m_session);
            if (step == Job::Step::Done) {
                it = jobs.erase(it);
                continue;
            }
            busy = busy || step == Job::Step::Busy;
            ++it;
        }
        if (ssh_event_dopoll(m_event, busy ? 0 : kIdlePollMs) == SSH_ERROR ||
            !ssh_is_connected(m_session)) {
            reason = QStringLiteral("the connection to the guest broke: %1")
                         .arg(QString::fromUtf8(ssh_get_error(m_session)));
            qCWarning(lcChannel) << reason;
            break;
        }
    }
    std::vector<std::shared_ptr<Job>> late;
    {
        std::lock_guard lock(m_mutex);
        m_endReason = reason;
        late.swap(m_incoming);
    }
    failAll(jobs, reason);
    failAll(late, reason);
    for (const auto& [fd, events] : m_watched)
        ssh_event_remove_fd(m_event, fd);
    m_watched.clear();
    ssh_event_remove_fd(m_event, m_wakeFd);
    ssh_event_remove_session(m_event, m_session);
    ssh_event_free(m_event);
    ssh_disconnect(m_session);
    ssh_free(m_session);
    qCInfo(lcChannel) << "SSH session ended:" << reason;
}

} // namespace sbw
