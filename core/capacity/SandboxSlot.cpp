#include "capacity/SandboxSlot.h"

#include "base/DataPaths.h"

#include <QDir>
#include <QFile>
#include <QThread>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <utility>

namespace sbw {
namespace {

constexpr int kPollMs = 100;

/// The places of the host on `remoteUri`: this machine's own folder for a local daemon, one
/// folder per remote host (its URI, made a file name) beside it.
QString capacityDir(const QString& remoteUri)
{
    const QString local = paths::stateDir() + QLatin1String("/capacity");
    if (remoteUri.isEmpty())
        return local;
    return local + QLatin1String("/hosts/") +
           QString::fromLatin1(remoteUri.toUtf8().toPercentEncoding(QByteArray(), QByteArray(), '_'));
}

/// The file `path` opened and flock()ed with `operation` (LOCK_EX or LOCK_SH, with LOCK_NB);
/// -1 when it cannot be opened or is locked by another holder.
int lockFile(const QString& path, int operation)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (::flock(fd, operation) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// A waiting run's ticket: a file named by the time it came, held locked while it waits.
class Ticket
{
public:
    explicit Ticket(const QString& dir) : m_dir(dir)
    {
        static std::atomic<int> counter{0};
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now); // one clock for every process of the host
        m_name = QStringLiteral("%1-%2-%3")
                     .arg(qint64(now.tv_sec) * 1000000000 + now.tv_nsec, 20, 10, QLatin1Char('0'))
                     .arg(::getpid())
                     .arg(counter++);
        m_path = m_dir + QLatin1String("/queue/") + m_name;
        // Locked under a hidden name first, then renamed into the queue: a ticket that was
        // listed before it was locked would look abandoned to a waiter counting those ahead,
        // which would delete it and hold it with its probe so that this lock failed.
        const QString hidden = m_dir + QLatin1String("/queue/.") + m_name;
        m_fd = lockFile(hidden, LOCK_EX | LOCK_NB);
        if (m_fd >= 0 && ::rename(QFile::encodeName(hidden).constData(), QFile::encodeName(m_path).constData()) != 0) {
            const int error = errno;
            ::unlink(QFile::encodeName(hidden).constData());
            ::close(m_fd);
            m_fd = -1;
            errno = error;
        }
    }
    ~Ticket()
    {
        if (m_fd >= 0) {
            ::unlink(QFile::encodeName(m_path).constData());
            ::close(m_fd);
        }
    }
    bool isValid() const { return m_fd >= 0; }

    /// Live tickets older than this one; removes those whose process has gone.
    int ahead() const
    {
        int count = 0;
        const QDir queue(m_dir + QLatin1String("/queue"));
        for (const QString& other : queue.entryList(QDir::Files, QDir::Name)) {
            if (other >= m_name)
                break;
            const QString path = queue.filePath(other);
            if (const int probe = lockFile(path, LOCK_SH | LOCK_NB); probe >= 0) {
                ::unlink(QFile::encodeName(path).constData()); // its holder is gone
                ::close(probe);
                continue;
            }
            ++count;
        }
        return count;
    }

private:
    QString m_dir;
    QString m_name;
    QString m_path;
    int m_fd = -1;
};

} // namespace

Expected<SandboxSlot> SandboxSlot::acquire(int max, const std::function<void(int ahead)>& onQueued,
                                           const std::atomic_bool* cancel, const QString& remoteUri)
{
    const QString dir = capacityDir(remoteUri);
    if (!QDir().mkpath(dir + QLatin1String("/queue")))
        return makeError(QStringLiteral("cannot create the folder %1").arg(dir));
    Ticket ticket(dir);
    if (!ticket.isValid())
        return makeError(QStringLiteral("cannot queue in %1: %2").arg(dir, QString::fromLocal8Bit(strerror(errno))));
    int reported = -1;
    for (;;) {
        if (cancel && *cancel)
            return makeError(QStringLiteral("cancelled while waiting for a free sandbox"));
        const int ahead = ticket.ahead();
        if (ahead == 0) {
            for (int index = 0; index < max; ++index) {
                const QString path = dir + QStringLiteral("/slot-%1").arg(index);
                if (const int fd = lockFile(path, LOCK_EX | LOCK_NB); fd >= 0)
                    return SandboxSlot(fd, index);
            }
        }
        if (ahead != reported) { // every place is taken, or others came first
            reported = ahead;
            if (onQueued)
                onQueued(ahead);
        }
        QThread::msleep(kPollMs);
    }
}

SandboxSlot::SandboxSlot(SandboxSlot&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_index(std::exchange(other.m_index, -1))
{}

SandboxSlot& SandboxSlot::operator=(SandboxSlot&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_index = std::exchange(other.m_index, -1);
    }
    return *this;
}

SandboxSlot::~SandboxSlot()
{
    if (m_fd >= 0)
        ::close(m_fd); // closing the last descriptor releases the flock
}

} // namespace sbw
