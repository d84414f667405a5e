#include "guest/SftpClient.h"

#include "base/VisibleText.h"
#include "guest/SshSessionThread.h"

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
    return visibleName(path);
}

/// Why the guest refused the last request, as a phrase.
QString sftpReason(sftp_session sftp)
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
    return reason;
}

/// "cannot ACTION PATH: REASON" from the SFTP status of the last request.
Error sftpError(sftp_session sftp, const QString& action, const QByteArray& path)
{
    return makeError(
        QStringLiteral("cannot %1 %2: %3").arg(action, guestPath(path), sftpReason(sftp)));
}

/// The error for a path the guest's kernel would refuse (ENAMETOOLONG), or nothing.
std::optional<Error> tooLongForTheGuest(const QString& action, const QByteArray& path)
{
    if (path.size() <= kMaxPathBytes)
        return std::nullopt;
    return makeError(QStringLiteral("cannot %1 %2: its path has %3 bytes, more than the %4 a "
                                    "Linux guest opens")
                         .arg(action, guestPath(path))
                         .arg(path.size())
                         .arg(kMaxPathBytes));
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

/// One download (SftpClient::download()), a step at a time on the session's thread: the stat
/// of what was asked, then one folder listed per step, then each file copied with
/// kReadsPerStep reads in flight per step. step() returns nothing while there is more to do.
/// What cannot be copied inside a folder is left out and listed (SftpDownload::skipped).
class Download
{
public:
    Download(QByteArray guestPath, QString hostPath, SftpClient::Progress progress, qint64 maxBytes,
             bool keepHostFiles)
        : m_guestPath(std::move(guestPath)), m_hostPath(std::move(hostPath)),
          m_progress(std::move(progress)), m_maxBytes(maxBytes), m_keepHostFiles(keepHostFiles)
    {}

    std::optional<Expected<SftpDownload>> step(sftp_session sftp)
    {
        if (!m_started)
            return start(sftp);
        if (!m_foldersToWalk.isEmpty())
            return walkFolder(sftp);
        if (!m_remote) {
            if (m_files.isEmpty())
                return m_result;
            if (auto failed = openNextFile(sftp))
                return failed;
            if (!m_remote)
                return std::nullopt; // left out; the next step takes the next file
        }
        return readChunk(sftp);
    }

private:
    using Skip = SftpSkipped::Reason;

    struct File
    {
        QByteArray remote;
        QString local;
        qint64 size = 0;
    };

    void skip(const QByteArray& path, Skip reason, quint32 mode = 0, const QString& detail = {})
    {
        m_result.skipped.append({path, reason, mode, detail});
    }

    /// What was asked: a folder (made on the host, walked next) or a file.
    std::optional<Expected<SftpDownload>> start(sftp_session sftp)
    {
        m_started = true;
        if (auto tooLong = tooLongForTheGuest(QStringLiteral("download"), m_guestPath))
            return *tooLong;
        if (QFile::encodeName(m_hostPath).size() > kMaxPathBytes)
            return makeError(QStringLiteral("cannot download %1: the host path %2 has more than "
                                            "%3 bytes")
                                 .arg(guestPath(m_guestPath), m_hostPath)
                                 .arg(kMaxPathBytes));
        sftp_attributes attributes = sftp_stat(sftp, m_guestPath.constData());
        if (!attributes)
            return sftpError(sftp, QStringLiteral("download"), m_guestPath);
        const SftpEntry entry = toEntry(attributes);
        sftp_attributes_free(attributes);
        if (entry.type == SftpEntry::Type::Directory) {
            if (!QDir().mkpath(m_hostPath))
                return makeError(QStringLiteral("cannot create the folder %1").arg(m_hostPath));
            m_foldersToWalk.append({m_guestPath, m_hostPath});
        } else if (entry.type == SftpEntry::Type::File) {
            m_files.append({m_guestPath, m_hostPath, entry.size});
            m_total = entry.size;
        } else {
            return makeError(QStringLiteral("cannot download %1: it is neither a file nor a folder")
                                 .arg(guestPath(m_guestPath)));
        }
        return std::nullopt;
    }

    /// The host path of `name` in `localFolder`, or nothing when the host cannot hold it (the
    /// entry is then listed as skipped).
    std::optional<QString> hostPathOf(const QString& localFolder, const QByteArray& name,
                                      const QByteArray& remote)
    {
        const QString hostName = visibleName(name);
        if (QFile::encodeName(hostName).size() > kMaxNameBytes) {
            skip(remote, Skip::HostNameTooLong);
            return std::nullopt;
        }
        const QString local = localFolder + QLatin1Char('/') + hostName;
        if (QFile::encodeName(local).size() > kMaxPathBytes) {
            skip(remote, Skip::HostPathTooLong);
            return std::nullopt;
        }
        return local;
    }

    /// One folder: its subfolders made on the host and queued, its files queued, the rest
    /// listed as skipped. The folder asked for must be listed; a subfolder the guest refuses
    /// is left out.
    std::optional<Expected<SftpDownload>> walkFolder(sftp_session sftp)
    {
        const auto [remoteFolder, localFolder] = m_foldersToWalk.takeFirst();
        sftp_dir dir = sftp_opendir(sftp, remoteFolder.constData());
        if (!dir && remoteFolder == m_guestPath)
            return sftpError(sftp, QStringLiteral("list"), remoteFolder);
        if (!dir) {
            skip(remoteFolder, Skip::Unreadable, 0040000,
                 QStringLiteral("a folder the guest did not list: %1").arg(sftpReason(sftp)));
            return std::nullopt;
        }
        while (sftp_attributes attributes = sftp_readdir(sftp, dir)) {
            const SftpEntry entry = toEntry(attributes);
            sftp_attributes_free(attributes);
            if (entry.name == "." || entry.name == "..")
                continue;
            const QByteArray remote = remoteFolder + '/' + entry.name;
            if (entry.type == SftpEntry::Type::Symlink) {
                skip(remote, Skip::Symlink, entry.mode);
                continue;
            }
            if (entry.type != SftpEntry::Type::Directory && entry.type != SftpEntry::Type::File) {
                skip(remote, Skip::Special, entry.mode);
                continue;
            }
            if (remote.size() > kMaxPathBytes) {
                skip(remote, Skip::GuestPathTooLong, entry.mode);
                continue;
            }
            const std::optional<QString> local = hostPathOf(localFolder, entry.name, remote);
            if (!local)
                continue;
            if (entry.type == SftpEntry::Type::Directory) {
                if (!QDir().mkpath(*local)) {
                    sftp_closedir(dir);
                    return makeError(QStringLiteral("cannot create the folder %1").arg(*local));
                }
                m_foldersToWalk.append({remote, *local});
            } else {
                m_files.append({remote, *local, entry.size});
                m_total += entry.size;
            }
        }
        const bool complete = sftp_dir_eof(dir);
        const QString reason = sftpReason(sftp);
        sftp_closedir(dir);
        if (const QString note = pathLimitNote(remoteFolder); !note.isEmpty())
            skip(remoteFolder, Skip::NearPathLimit, 0040000,
                 QStringLiteral("entries with names longer than %1 bytes in it are not listed by "
                                "the guest's SFTP server: their paths would pass %2 bytes")
                     .arg(std::max<qsizetype>(kMaxPathBytes - remoteFolder.size() - 1, 0))
                     .arg(kMaxPathBytes));
        if (!complete) // what was listed is queued; the rest of the folder is not known
            skip(remoteFolder, Skip::Unreadable, 0040000,
                 QStringLiteral("a folder whose listing broke off: %1").arg(reason));
        return std::nullopt;
    }

    /// Opens the next queued file on both sides; an error, or nothing (m_remote stays null
    /// when the file is left out).
    std::optional<Expected<SftpDownload>> openNextFile(sftp_session sftp)
    {
        const File file = m_files.takeFirst();
        const bool asked = file.remote == m_guestPath;
        if (m_keepHostFiles && QFileInfo::exists(file.local)) {
            skip(file.remote, Skip::ExistsOnHost);
            return std::nullopt;
        }
        m_fileName = file.remote;
        m_fileSize = file.size;
        m_fileDone = 0;
        if (!(m_remote = sftp_open(sftp, file.remote.constData(), O_RDONLY, 0))) {
            if (asked)
                return sftpError(sftp, QStringLiteral("download"), file.remote);
            skip(file.remote, Skip::Unreadable, 0100000,
                 QStringLiteral("a file the guest did not open: %1").arg(sftpReason(sftp)));
            return std::nullopt;
        }
        m_local.setFileName(file.local);
        // NewOnly: a host file that appeared since the check above is still not overwritten.
        const QIODevice::OpenMode mode = m_keepHostFiles
                                             ? QIODevice::WriteOnly | QIODevice::NewOnly
                                             : QIODevice::WriteOnly | QIODevice::Truncate;
        if (!m_local.open(mode)) {
            sftp_close(std::exchange(m_remote, nullptr));
            if (m_keepHostFiles && QFileInfo::exists(file.local)) {
                skip(file.remote, Skip::ExistsOnHost);
                return std::nullopt;
            }
            return makeError(
                QStringLiteral("cannot write %1: %2").arg(file.local, m_local.errorString()));
        }
        return std::nullopt;
    }

    /// kReadsPerStep requests in flight, answered in order; the file ends at an empty answer,
    /// or at a short one once the size seen when listing is reached.
    std::optional<Expected<SftpDownload>> readChunk(sftp_session sftp)
    {
        int ids[kReadsPerStep];
        for (int& id : ids) {
            if ((id = sftp_async_read_begin(m_remote, kReadSize)) < 0)
                return sftpError(sftp, QStringLiteral("download"), m_fileName);
        }
        QByteArray buffer(kReadSize, Qt::Uninitialized);
        bool ended = false;
        bool resync = false;
        std::optional<Error> error;
        for (const int id : ids) {
            const int got = sftp_async_read(m_remote, buffer.data(), kReadSize, uint32_t(id));
            if (got < 0 && !error)
                error = sftpError(sftp, QStringLiteral("download"), m_fileName);
            if (got <= 0 || error) {
                ended = true;
                continue;
            }
            if (ended) { // data after a short answer: the file grew while being read
                resync = true;
                continue;
            }
            if (m_local.write(buffer.constData(), got) != got && !error)
                error = makeError(QStringLiteral("cannot write %1: %2")
                                      .arg(m_local.fileName(), m_local.errorString()));
            m_fileDone += got;
            m_done += got;
            if (m_maxBytes >= 0 && m_done > m_maxBytes && !error)
                error = makeError(QStringLiteral("cannot download %1: it is larger than %2 bytes")
                                      .arg(guestPath(m_guestPath))
                                      .arg(m_maxBytes));
            if (got < kReadSize && m_fileDone >= m_fileSize)
                ended = true;
        }
        if (resync) {
            ended = false;
            sftp_seek64(m_remote, uint64_t(m_fileDone));
        }
        if (m_progress)
            m_progress(m_done, std::max(m_total, m_done));
        if (error || ended) {
            sftp_close(std::exchange(m_remote, nullptr));
            m_local.close();
        }
        if (error)
            return *error;
        if (ended) {
            ++m_result.files;
            m_result.bytes += m_fileDone;
        }
        return std::nullopt;
    }

    const QByteArray m_guestPath;
    const QString m_hostPath;
    const SftpClient::Progress m_progress;
    const qint64 m_maxBytes;
    const bool m_keepHostFiles;
    bool m_started = false;
    QList<std::pair<QByteArray, QString>> m_foldersToWalk;
    QList<File> m_files;
    qint64 m_total = 0;
    qint64 m_done = 0;
    SftpDownload m_result;
    // The file being copied.
    sftp_file m_remote = nullptr;
    QFile m_local;
    qint64 m_fileDone = 0;
    qint64 m_fileSize = 0;
    QByteArray m_fileName;
};

} // namespace

/// The SFTP session, touched on the I/O thread only (closeRequested excepted).
struct SftpClient::Shared
{
    sftp_session sftp = nullptr;
    std::atomic_bool closeRequested = false;
};

/// Opens the SFTP channel, keeps it while the client lives and frees it on the I/O thread.
class SftpClient::SessionJob : public SshSessionThread::Job
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
template <typename T> class SftpClient::Call : public SshSessionThread::Job
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

Expected<std::unique_ptr<SftpClient>> SftpClient::open(std::shared_ptr<SshSessionThread> loop)
{
    auto shared = std::make_shared<Shared>();
    auto job = std::make_shared<SessionJob>(shared);
    auto opened = job->opened();
    loop->add(std::move(job));
    if (auto ok = opened.get(); !ok)
        return ok.error();
    return std::unique_ptr<SftpClient>(new SftpClient(std::move(loop), std::move(shared)));
}

SftpClient::SftpClient(std::shared_ptr<SshSessionThread> loop, std::shared_ptr<Shared> shared)
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
    if (auto tooLong = tooLongForTheGuest(QStringLiteral("list"), path))
        return *tooLong;
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

Expected<SftpDownload> SftpClient::download(const QByteArray& guestPath, const QString& hostPath,
                                            const Progress& progress, qint64 maxBytes,
                                            HostFiles existing)
{
    auto download = std::make_shared<Download>(guestPath, hostPath, progress, maxBytes,
                                               existing == HostFiles::Keep);
    return run<SftpDownload>([download](sftp_session sftp) { return download->step(sftp); });
}

QString pathLimitNote(const QByteArray& folder)
{
    const qsizetype listable = kMaxPathBytes - folder.size() - (folder.endsWith('/') ? 0 : 1);
    if (listable >= kMaxNameBytes)
        return {};
    return QStringLiteral("%1 is near the guest's path limit: entries with names longer than %2 "
                          "bytes are not listed (the guest's SFTP server leaves out paths of more "
                          "than %3 bytes)")
        .arg(guestPath(folder))
        .arg(std::max<qsizetype>(listable, 0))
        .arg(kMaxPathBytes);
}

QString skippedReasonText(const SftpSkipped& skipped)
{
    using Reason = SftpSkipped::Reason;
    switch (skipped.reason) {
    case Reason::Symlink:
        return QStringLiteral("a symbolic link (links are not followed)");
    case Reason::Special:
        switch (skipped.mode & 0170000) {
        case 0010000:
            return QStringLiteral("a named pipe (special files are not copied)");
        case 0140000:
            return QStringLiteral("a socket (special files are not copied)");
        case 0020000:
            return QStringLiteral("a character device (special files are not copied)");
        case 0060000:
            return QStringLiteral("a block device (special files are not copied)");
        default:
            return QStringLiteral("neither a file, a folder nor a link");
        }
    case Reason::ExistsOnHost:
        return QStringLiteral("already on the host, which kept its own");
    case Reason::HostNameTooLong:
        return QStringLiteral("its host name would have more than %1 bytes").arg(kMaxNameBytes);
    case Reason::HostPathTooLong:
        return QStringLiteral("its host path would have more than %1 bytes").arg(kMaxPathBytes);
    case Reason::GuestPathTooLong:
        return QStringLiteral("its guest path has more than the %1 bytes a Linux guest opens")
            .arg(kMaxPathBytes);
    case Reason::Unreadable:
    case Reason::NearPathLimit:
        return skipped.detail;
    }
    return {};
}

} // namespace sbw
