#include "hypervisor/IncomingMigration.h"

#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <libvirt/libvirt-qemu.h>
#include <libvirt/libvirt.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fcntl.h>
#include <future>
#include <sys/socket.h>
#include <unistd.h>

namespace sbw {
namespace {

const char kFdName[] = "sbw-saved-state";
/// How often QEMU's status is asked while it loads.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

/// Runs a QMP command on the domain's monitor, passing `fd` along when it is not -1. Returns
/// the answer's "return" value.
Expected<QJsonValue> monitor(virDomainPtr domain, const QJsonObject& command, int fd = -1)
{
    const QByteArray json = QJsonDocument(command).toJson(QJsonDocument::Compact);
    char* reply = nullptr;
    unsigned int fdCount = fd < 0 ? 0 : 1;
    const int rc = fd < 0 ? virDomainQemuMonitorCommand(domain, json.constData(), &reply, 0)
                          : virDomainQemuMonitorCommandWithFiles(domain, json.constData(), fdCount, &fd,
                                                                 nullptr, nullptr, &reply, 0);
    const QString what = command.value(QLatin1String("execute")).toString();
    if (rc < 0)
        return virtError(QStringLiteral("QEMU's monitor refused %1").arg(what));
    const QJsonObject answer = QJsonDocument::fromJson(reply).object();
    free(reply);
    if (answer.contains(QLatin1String("error")))
        return makeError(QStringLiteral("QEMU's monitor refused %1: %2")
                             .arg(what, answer.value(QLatin1String("error")).toObject().value(QLatin1String("desc")).toString()));
    return answer.value(QLatin1String("return"));
}

QJsonObject qmp(const char* execute, const QJsonObject& arguments = {})
{
    QJsonObject command{{QStringLiteral("execute"), QLatin1String(execute)}};
    if (!arguments.isEmpty())
        command.insert(QStringLiteral("arguments"), arguments);
    return command;
}

/// Sends the volume's bytes from `offset` to `fd` until the end or a send fails (QEMU closed
/// its end, or the loader gave up and shut `fd` down).
Expected<void> sendVolume(StoragePool& pool, const QString& volume, qint64 offset, int fd)
{
    QString sendError;
    auto read = pool.download(volume, offset, 0, [&](QByteArrayView chunk) {
        for (qsizetype sent = 0; sent < chunk.size();) {
            const ssize_t n = ::send(fd, chunk.data() + sent, size_t(chunk.size() - sent), MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                sendError = QString::fromLocal8Bit(strerror(errno));
                return false;
            }
            sent += n;
        }
        return true;
    });
    ::shutdown(fd, SHUT_WR);
    if (!sendError.isEmpty())
        return makeError(QStringLiteral("QEMU stopped reading the saved state: %1").arg(sendError));
    return read;
}

/// Polls QEMU's run state until it has left "inmigrate".
Expected<void> waitLoaded(virDomainPtr domain, std::chrono::steady_clock::time_point deadline)
{
    for (;;) {
        auto status = monitor(domain, qmp("query-status"));
        if (!status)
            return makeError(QStringLiteral("QEMU could not load the saved state: %1").arg(status.error().message));
        const QString state = status->toObject().value(QLatin1String("status")).toString();
        if (state == QLatin1String("paused") || state == QLatin1String("prelaunch"))
            return {};
        if (state != QLatin1String("inmigrate"))
            return makeError(QStringLiteral("QEMU could not load the saved state: it is %1").arg(state));
        if (std::chrono::steady_clock::now() >= deadline)
            return makeError(QStringLiteral("QEMU did not load the saved state in time"));
        QThread::msleep(std::chrono::duration_cast<std::chrono::milliseconds>(kPollInterval).count());
    }
}

/// The volume's file opened for reading at `offset`, where this process may read it (a pool
/// on this machine whose files it can open); -1 otherwise.
int openVolumeAt(const StoragePool& pool, const QString& volume, qint64 offset)
{
    const QString path = pool.pathOf(volume);
    if (path.isEmpty())
        return -1;
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && ::lseek(fd, offset, SEEK_SET) != offset) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// QEMU reads the stream from the file itself: no copy through libvirt's storage stream.
Expected<void> loadFromFile(virDomainPtr domain, int fd, std::chrono::steady_clock::time_point deadline)
{
    auto handed = monitor(domain, qmp("getfd", {{QStringLiteral("fdname"), QLatin1String(kFdName)}}), fd);
    ::close(fd);
    if (!handed)
        return handed.error();
    const QJsonObject incoming{{QStringLiteral("uri"), QStringLiteral("fd:%1").arg(QLatin1String(kFdName))}};
    if (auto started = monitor(domain, qmp("migrate-incoming", incoming)); !started)
        return started.error();
    return waitLoaded(domain, deadline);
}

/// QEMU reads the stream from a socket that a thread here feeds through the storage API.
Expected<void> loadThroughStream(virDomainPtr domain, StoragePool& pool, const QString& saveVolume,
                                 qint64 offset, std::chrono::steady_clock::time_point deadline)
{
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        return makeError(QStringLiteral("cannot make a socket for the saved state: %1").arg(QString::fromLocal8Bit(strerror(errno))));
    auto handed = monitor(domain, qmp("getfd", {{QStringLiteral("fdname"), QLatin1String(kFdName)}}), pair[1]);
    ::close(pair[1]);
    if (!handed) {
        ::close(pair[0]);
        return handed.error();
    }
    auto sent = std::async(std::launch::async, [&] { return sendVolume(pool, saveVolume, offset, pair[0]); });
    Expected<void> loaded;
    const QJsonObject incoming{{QStringLiteral("uri"), QStringLiteral("fd:%1").arg(QLatin1String(kFdName))}};
    if (auto started = monitor(domain, qmp("migrate-incoming", incoming)); !started)
        loaded = started.error();
    else
        loaded = waitLoaded(domain, deadline);
    if (!loaded)
        ::shutdown(pair[0], SHUT_RDWR); // ends a send that QEMU no longer reads
    const Expected<void> sendResult = sent.get();
    ::close(pair[0]);
    if (!loaded)
        return loaded;
    return sendResult;
}

} // namespace

Expected<void> loadIncomingMigration(virDomainPtr domain, StoragePool& pool, const QString& saveVolume,
                                     qint64 offset, std::chrono::steady_clock::time_point deadline)
{
    if (const int fd = openVolumeAt(pool, saveVolume, offset); fd >= 0)
        return loadFromFile(domain, fd, deadline);
    return loadThroughStream(domain, pool, saveVolume, offset, deadline);
}

} // namespace sbw
