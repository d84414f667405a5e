#pragma once

#include <QString>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

struct ssh_session_struct;
struct ssh_event_struct;

namespace sbw {

/// The one thread that owns a libssh session (libssh is not thread-safe per session). It
/// polls the session's socket and an eventfd with ssh_event_dopoll; other threads hand it
/// jobs (add()) and nudge it (wake()) when a job has new work, such as bytes to write.
///
/// Internal to GuestSession, ShellChannel and SftpClient.
class SshSessionThread
{
public:
    /// Work on the session, stepped on the I/O thread only.
    class Job
    {
    public:
        enum class Step
        {
            Wait, ///< nothing to do until the guest sends something, wake() or ≤ 100 ms
            Busy, ///< more to do at once (a transfer between two chunks)
            Done, ///< finished: the loop drops the job
        };
        virtual ~Job() = default;
        /// Advances the job with nonblocking libssh calls (or blocking ones bounded to a chunk).
        virtual Step step(ssh_session_struct* session) = 0;
        /// The session is gone (guest gone, or the GuestSession was destroyed): report `reason`
        /// and release libssh objects. Called once, on the I/O thread, instead of further steps.
        virtual void fail(const QString& reason) = 0;
    };

    /// Takes ownership of the connected, authenticated `session` and starts the I/O thread.
    explicit SshSessionThread(ssh_session_struct* session);
    /// Same as stop().
    ~SshSessionThread();

    SshSessionThread(const SshSessionThread&) = delete;
    SshSessionThread& operator=(const SshSessionThread&) = delete;

    /// Queues `job`; it is stepped from the next loop turn on. After the session ended the job's
    /// fail() runs at once, on the calling thread. Thread-safe.
    void add(std::shared_ptr<Job> job);

    /// Makes the loop step its jobs now. Thread-safe.
    void wake();

    /// Fails every job, disconnects and frees the session and joins the thread. Idempotent;
    /// must not be called on the I/O thread.
    void stop();

    /// True once the session has ended (stop(), or the connection broke). Thread-safe.
    bool hasEnded();

    /// True when called on the I/O thread (blocking calls there would deadlock).
    bool onLoopThread() const;

    /// Makes the loop wake when file descriptor `fd` is ready for `events` (POLLIN, POLLOUT;
    /// 0 stops watching it), so a job that moves bytes between a channel and a socket is
    /// stepped as soon as the socket is. I/O thread only (from Job::step() or Job::fail()).
    void watch(int fd, short events);

private:
    void run();
    void failAll(std::vector<std::shared_ptr<Job>>& jobs, const QString& reason);

    ssh_session_struct* m_session;
    ssh_event_struct* m_event = nullptr;
    int m_wakeFd = -1;
    std::mutex m_mutex;
    std::vector<std::shared_ptr<Job>> m_incoming; ///< added, not yet taken by the loop
    std::map<int, short> m_watched;               ///< watch(): fd → events (I/O thread only)
    bool m_stopping = false;
    QString m_endReason; ///< set once the session ended; new jobs fail with it
    std::thread m_thread;
};

} // namespace sbw
