#include "SftpClient.h"

#include "SessionLoop.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <fcntl.h>
#include <future>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

namespace sbw {
namespace {

/// Bytes per SFTP read request; a download step keeps kReadsPerStep of them in flight.
constexpr int kReadSize = 64 * 1024;
constexpr int kReadsPerStep = 4;
/// Bytes per SFTP write request: OpenSSH's sftp-server accepts messages up to 256 KiB, header
/// included. libssh 0.10 waits for each write's reply, so the fewer requests the better (a
/// 50 MiB upload under TCG: 128 KiB writes reached 0.79 of `sftp put`'s speed); one per step.
constexpr int kWriteSize = 248 * 1024;
constexpr int kWritesPerStep = 1;
/// Entries per listing step and per onBatch call.
constexpr int kListBatch = 512;

QString guestPath(const QByteArray& path)
{
    return QString::fromUtf8(path);
}

/// "cannot ACTION PATH: REASON" from the SFTP status of the last request.
Error sftpError(sftp_session sftp, const QString& action, const QByteArray& path)
{
    QString reason;
    switch (sftp_get_error(sftp)) {
    case SSH_FX_EOF:
        reason = QStringLiteral("the file ended early");
        break;
    case SSH_FX_NO_SUCH_FILE:
    case SSH_FX_NO_SUCH_PATH:
        reason = QStringLiteral("there is no such file or folder in the guest");
        break;
    case SSH_FX_PERMISSION_DENIED:
        reason = QStringLiteral("permission denied in the guest");
        break;
    case SSH_FX_FILE_ALREADY_EXISTS:
        reason = QStringLiteral("it already exists in the guest");
        break;
    case SSH_FX_FAILURE:
        reason = QStringLiteral("the guest refused (a folder that is not empty, a file where a "
                                "folder is expected, or a full disk)");
        break;
    default:
        reason = QString::fromUtf8(ssh_get_error(sftp->session));
        break;
    }
    return makeError(QStringLiteral("cannot %1 %2: %3").arg(action, guestPath(path), reason));
}

SftpEntry toEntry(sftp_attributes attributes)
{
    SftpEntry entry;
    entry.name = QByteArray(attributes->name ? attributes->name : "");
    entry.size = qint64(attributes->size);
    entry.mode = attributes->permissions;
    entry.uid = attributes->uid;
    entry.gid = attributes->gid;
    entry.owner = QString::fromUtf8(attributes->owner ? attributes->owner : "");
    entry.group = QString::fromUtf8(attributes->group ? attributes->group : "");
    entry.mtime = QDateTime::fromSecsSinceEpoch(qint64(attributes->mtime), Qt::UTC);
    switch (attributes->type) {
    case SSH_FILEXFER_TYPE_REGULAR:
        entry.type = SftpEntry::Type::File;
        break;
    case SSH_FILEXFER_TYPE_DIRECTORY:
        entry.type = SftpEntry::Type::Directory;
        break;
    case SSH_FILEXFER_TYPE_SYMLINK:
        entry.type = SftpEntry::Type::Symlink;
        break;
    case SSH_FILEXFER_TYPE_SPECIAL:
        entry.type = SftpEntry::Type::Special;
        break;
    default:
        entry.type = SftpEntry::Type::Unknown;
        break;
    }
    return entry;
}

/// Runs `body` with the session in blocking mode: libssh's SFTP calls wait for their replies
/// (serving the other channels' packets meanwhile) instead of spinning.
template <typename F> auto blocking(ssh_session session, F&& body)
{
    ssh_set_blocking(session, 1);
    auto result = body();
    ssh_set_blocking(session, 0);
    return result;
}

} // namespace

/// The SFTP session, touched on the I/O thread only (closeRequested excepted).
struct SftpClient::Shared
{
    sftp_session sftp = nullptr;
    std::atomic_bool closeRequested = false;
};

/// Opens the SFTP channel, keeps it while the client lives and frees it on the I/O thread.
class SftpClient::SessionJob : public SessionLoop::Job
{
public:
    explicit SessionJob(std::shared_ptr<Shared> shared) : m_shared(std::move(shared)) {}

    std::future<Expected<void>> opened() { return m_opened.get_future(); }

    Step step(ssh_session session) override
    {
        if (!m_started) {
            m_started = true;
            std::optional<Error> error = blocking(session, [&]() -> std::optional<Error> {
                sftp_session sftp = sftp_new(session);
                if (!sftp)
                    return makeError(QStringLiteral("cannot open an SFTP channel: %1")
                                         .arg(QString::fromUtf8(ssh_get_error(session))));
                if (sftp_init(sftp) != SSH_OK) {
                    const QString message = QString::fromUtf8(ssh_get_error(session));
                    sftp_free(sftp);
                    return makeError(
                        QStringLiteral("the guest's SFTP server did not start: %1").arg(message));
                }
                m_shared->sftp = sftp;
                return std::nullopt;
            });
            if (error) {
                m_opened.set_value(*error);
                return Step::Done;
            }
            m_opened.set_value({});
        }
        if (m_shared->closeRequested) {
            release();
            return Step::Done;
        }
        return Step::Wait;
    }

    void fail(const QString& reason) override
    {
        if (!m_started) {
            m_started = true;
            m_opened.set_value(makeError(reason));
        }
        release();
    }

private:
    void release()
    {
        if (m_shared->sftp)
            sftp_free(std::exchange(m_shared->sftp, nullptr));
    }

    std::shared_ptr<Shared> m_shared;
    std::promise<Expected<void>> m_opened;
    bool m_started = false;
};

/// One client call: its step function runs on the I/O thread until it yields a result.
template <typename T> class SftpClient::Call : public SessionLoop::Job
{
public:
    using StepFunction = std::function<std::optional<Expected<T>>(sftp_session)>;

    Call(std::shared_ptr<Shared> shared, StepFunction step)
        : m_shared(std::move(shared)), m_step(std::move(step))
    {}

    std::future<Expected<T>> result() { return m_result.get_future(); }

    Step step(ssh_session session) override
    {
        if (!m_shared->sftp) {
            m_result.set_value(makeError(QStringLiteral("the SFTP session is closed")));
            return Step::Done;
        }
        std::optional<Expected<T>> result =
            blocking(session, [&] { return m_step(m_shared->sftp); });
        if (!result)
            return Step::Busy;
        m_result.set_value(std::move(*result));
        return Step::Done;
    }

    void fail(const QString& reason) override { m_result.set_value(makeError(reason)); }

private:
    std::shared_ptr<Shared> m_shared;
    StepFunction m_step;
    std::promise<Expected<T>> m_result;
};

template <typename T>
Expected<T> SftpClient::run(std::function<std::optional<Expected<T>>(sftp_session)> step)
{
    Q_ASSERT(!m_loop->onLoopThread());
    auto call = std::make_shared<Call<T>>(m_shared, std::move(step));
    auto result = call->result();
    m_loop->add(std::move(call));
    return result.get();
}

Expected<std::unique_ptr<SftpClient>> SftpClient::open(std::shared_ptr<SessionLoop> loop)
{
    auto shared = std::make_shared<Shared>();
    auto job = std::make_shared<SessionJob>(shared);
    auto opened = job->opened();
    loop->add(std::move(job));
    if (auto ok = opened.get(); !ok)
        return ok.error();
    return std::unique_ptr<SftpClient>(new SftpClient(std::move(loop), std::move(shared)));
}

SftpClient::SftpClient(std::shared_ptr<SessionLoop> loop, std::shared_ptr<Shared> shared)
    : m_loop(std::move(loop)), m_shared(std::move(shared))
{}

SftpClient::~SftpClient()
{
    m_shared->closeRequested = true;
    m_loop->wake();
}

Expected<QList<SftpEntry>>
SftpClient::listDirectory(const QByteArray& path,
                          const std::function<void(const QList<SftpEntry>&)>& onBatch)
{
    struct State
    {
        sftp_dir dir = nullptr;
        QList<SftpEntry> entries;
    };
    auto state = std::make_shared<State>();
    return run<QList<SftpEntry>>(
        [=](sftp_session sftp) -> std::optional<Expected<QList<SftpEntry>>> {
            if (!state->dir && !(state->dir = sftp_opendir(sftp, path.constData())))
                return sftpError(sftp, QStringLiteral("list"), path);
            QList<SftpEntry> batch;
            bool ended = false;
            while (batch.size() < kListBatch) {
                sftp_attributes attributes = sftp_readdir(sftp, state->dir);
                if (!attributes) {
                    ended = true;
                    break;
                }
                if (qstrcmp(attributes->name, ".") != 0 && qstrcmp(attributes->name, "..") != 0)
                    batch.append(toEntry(attributes));
                sftp_attributes_free(attributes);
            }
            if (!batch.isEmpty()) {
                if (onBatch)
                    onBatch(batch);
                state->entries.append(batch);
            }
            if (!ended)
                return std::nullopt;
            const bool complete = sftp_dir_eof(state->dir);
            const Error error = sftpError(sftp, QStringLiteral("list"), path);
            sftp_closedir(std::exchange(state->dir, nullptr));
            if (!complete)
                return error;
            return std::move(state->entries);
        });
}

Expected<SftpEntry> SftpClient::stat(const QByteArray& path)
{
    return run<SftpEntry>([=](sftp_session sftp) -> std::optional<Expected<SftpEntry>> {
        sftp_attributes attributes = sftp_stat(sftp, path.constData());
        if (!attributes)
            return sftpError(sftp, QStringLiteral("read the attributes of"), path);
        SftpEntry entry = toEntry(attributes);
        sftp_attributes_free(attributes);
        entry.name = path.mid(path.lastIndexOf('/') + 1);
        return entry;
    });
}

Expected<QByteArray> SftpClient::realpath(const QByteArray& path)
{
    return run<QByteArray>([=](sftp_session sftp) -> std::optional<Expected<QByteArray>> {
        char* canonical = sftp_canonicalize_path(sftp, path.constData());
        if (!canonical)
            return sftpError(sftp, QStringLiteral("resolve"), path);
        QByteArray result(canonical);
        ssh_string_free_char(canonical);
        return result;
    });
}

Expected<void> SftpClient::remove(const QByteArray& path)
{
    return run<void>([=](sftp_session sftp) -> std::optional<Expected<void>> {
        sftp_attributes attributes = sftp_lstat(sftp, path.constData());
        if (!attributes)
            return sftpError(sftp, QStringLiteral("remove"), path);
        const bool folder = attributes->type == SSH_FILEXFER_TYPE_DIRECTORY;
        sftp_attributes_free(attributes);
        if ((folder ? sftp_rmdir(sftp, path.constData()) : sftp_unlink(sftp, path.constData())) !=
            0)
            return sftpError(sftp, QStringLiteral("remove"), path);
        return Expected<void>{};
    });
}

Expected<void> SftpClient::mkdir(const QByteArray& path)
{
    return run<void>([=](sftp_session sftp) -> std::optional<Expected<void>> {
        if (sftp_mkdir(sftp, path.constData(), 0755) != 0)
            return sftpError(sftp, QStringLiteral("create the folder"), path);
        return Expected<void>{};
    });
}

Expected<void> SftpClient::upload(const QString& hostPath, const QByteArray& guestPath,
                                  const Progress& progress)
{
    struct State
    {
        QFile local;
        sftp_file remote = nullptr;
        qint64 done = 0;
        qint64 total = 0;
    };
    auto state = std::make_shared<State>();
    state->local.setFileName(hostPath);
    if (!state->local.open(QIODevice::ReadOnly))
        return makeError(
            QStringLiteral("cannot read %1: %2").arg(hostPath, state->local.errorString()));
    state->total = state->local.size();
    return run<void>([=](sftp_session sftp) -> std::optional<Expected<void>> {
        if (!state->remote && !(state->remote = sftp_open(sftp, guestPath.constData(),
                                                          O_WRONLY | O_CREAT | O_TRUNC, 0644)))
            return sftpError(sftp, QStringLiteral("write"), guestPath);
        for (int i = 0; i < kWritesPerStep && state->done < state->total; ++i) {
            const QByteArray chunk = state->local.read(kWriteSize);
            if (chunk.isEmpty()) {
                sftp_close(std::exchange(state->remote, nullptr));
                return makeError(
                    QStringLiteral("cannot read %1: %2").arg(hostPath, state->local.errorString()));
            }
            if (sftp_write(state->remote, chunk.constData(), size_t(chunk.size())) !=
                chunk.size()) {
                const Error error = sftpError(sftp, QStringLiteral("write"), guestPath);
                sftp_close(std::exchange(state->remote, nullptr));
                return error;
            }
            state->done += chunk.size();
        }
        if (progress)
            progress(state->done, state->total);
        if (state->done < state->total)
            return std::nullopt;
        if (sftp_close(std::exchange(state->remote, nullptr)) != SSH_NO_ERROR)
            return sftpError(sftp, QStringLiteral("write"), guestPath);
        return Expected<void>{};
    });
}

Expected<void> SftpClient::download(const QByteArray& guestPath, const QString& hostPath,
                                    const Progress& progress, qint64 maxBytes)
{
    struct File
    {
        QByteArray remote;
        QString local;
        qint64 size = 0;
    };
    struct State
    {
        bool started = false;
        QList<std::pair<QByteArray, QString>> foldersToWalk;
        QList<File> files;
        qint64 total = 0;
        qint64 done = 0;
        // The file being copied.
        sftp_file remote = nullptr;
        QFile local;
        qint64 fileDone = 0;
        qint64 fileSize = 0;
        QByteArray fileName;
    };
    auto state = std::make_shared<State>();
    return run<void>([=](sftp_session sftp) -> std::optional<Expected<void>> {
        State& s = *state;
        if (!s.started) {
            s.started = true;
            sftp_attributes attributes = sftp_stat(sftp, guestPath.constData());
            if (!attributes)
                return sftpError(sftp, QStringLiteral("download"), guestPath);
            const SftpEntry entry = toEntry(attributes);
            sftp_attributes_free(attributes);
            if (entry.type == SftpEntry::Type::Directory) {
                if (!QDir().mkpath(hostPath))
                    return makeError(QStringLiteral("cannot create the folder %1").arg(hostPath));
                s.foldersToWalk.append({guestPath, hostPath});
            } else if (entry.type == SftpEntry::Type::File) {
                s.files.append({guestPath, hostPath, entry.size});
                s.total = entry.size;
            } else {
                return makeError(
                    QStringLiteral("cannot download %1: it is neither a file nor a folder")
                        .arg(QString::fromUtf8(guestPath)));
            }
            return std::nullopt;
        }
        if (!s.foldersToWalk.isEmpty()) { // one folder per step
            const auto [remoteFolder, localFolder] = s.foldersToWalk.takeFirst();
            sftp_dir dir = sftp_opendir(sftp, remoteFolder.constData());
            if (!dir)
                return sftpError(sftp, QStringLiteral("list"), remoteFolder);
            while (sftp_attributes attributes = sftp_readdir(sftp, dir)) {
                const SftpEntry entry = toEntry(attributes);
                sftp_attributes_free(attributes);
                if (entry.name == "." || entry.name == "..")
                    continue;
                const QByteArray remote = remoteFolder + '/' + entry.name;
                const QString local =
                    localFolder + QLatin1Char('/') + QFile::decodeName(entry.name);
                if (entry.type == SftpEntry::Type::Directory) {
                    if (!QDir().mkpath(local))
                        return makeError(QStringLiteral("cannot create the folder %1").arg(local));
                    s.foldersToWalk.append({remote, local});
                } else if (entry.type == SftpEntry::Type::File) {
                    s.files.append({remote, local, entry.size});
                    s.total += entry.size;
                }
            }
            const bool complete = sftp_dir_eof(dir);
            const Error error = sftpError(sftp, QStringLiteral("list"), remoteFolder);
            sftp_closedir(dir);
            if (!complete)
                return error;
            return std::nullopt;
        }
        if (!s.remote) {
            if (s.files.isEmpty())
                return Expected<void>{};
            const File file = s.files.takeFirst();
            s.fileName = file.remote;
            s.fileSize = file.size;
            s.fileDone = 0;
            if (!(s.remote = sftp_open(sftp, file.remote.constData(), O_RDONLY, 0)))
                return sftpError(sftp, QStringLiteral("download"), file.remote);
            s.local.setFileName(file.local);
            if (!s.local.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
                sftp_close(std::exchange(s.remote, nullptr));
                return makeError(
                    QStringLiteral("cannot write %1: %2").arg(file.local, s.local.errorString()));
            }
        }
        // kReadsPerStep requests in flight, answered in order; the file ends at an empty
        // answer, or at a short one once the size seen when listing is reached.
        int ids[kReadsPerStep];
        for (int& id : ids) {
            if ((id = sftp_async_read_begin(s.remote, kReadSize)) < 0)
                return sftpError(sftp, QStringLiteral("download"), s.fileName);
        }
        QByteArray buffer(kReadSize, Qt::Uninitialized);
        bool ended = false;
        bool resync = false;
        std::optional<Error> error;
        for (const int id : ids) {
            const int got = sftp_async_read(s.remote, buffer.data(), kReadSize, uint32_t(id));
            if (got < 0 && !error)
                error = sftpError(sftp, QStringLiteral("download"), s.fileName);
            if (got <= 0 || error) {
                ended = true;
                continue;
            }
            if (ended) { // data after a short answer: the file grew while being read
                resync = true;
                continue;
            }
            if (s.local.write(buffer.constData(), got) != got && !error)
                error = makeError(QStringLiteral("cannot write %1: %2")
                                      .arg(s.local.fileName(), s.local.errorString()));
            s.fileDone += got;
            s.done += got;
            if (maxBytes >= 0 && s.done > maxBytes && !error)
                error = makeError(QStringLiteral("cannot download %1: it is larger than %2 bytes")
                                      .arg(QString::fromUtf8(guestPath))
                                      .arg(maxBytes));
            if (got < kReadSize && s.fileDone >= s.fileSize)
                ended = true;
        }
        if (resync) {
            ended = false;
            sftp_seek64(s.remote, uint64_t(s.fileDone));
        }
        if (progress)
            progress(s.done, std::max(s.total, s.done));
        if (error || ended) {
            sftp_close(std::exchange(s.remote, nullptr));
            s.local.close();
        }
        if (error)
            return *error;
        return std::nullopt;
    });
}

} // namespace sbw
