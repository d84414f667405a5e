#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

struct sftp_session_struct;

namespace sbw {

class SshSessionThread;

/// One entry of a guest folder, as the guest's SFTP server (OpenSSH, protocol 3) reports it.
struct SftpEntry
{
    enum class Type
    {
        File,
        Directory,
        Symlink,
        Special,
        Unknown
    };

    QByteArray name;  ///< raw bytes of the name (any byte but '/' and NUL; not necessarily UTF-8)
    qint64 size = 0;  ///< bytes
    quint32 mode = 0; ///< st_mode: type bits and permissions (mode & 07777)
    quint32 uid = 0;
    quint32 gid = 0;
    QString owner;             ///< user name from the server's long listing; empty when unknown
    QString group;             ///< group name, likewise
    QDateTime mtime;           ///< modification time, UTC, second resolution
    Type type = Type::Unknown; ///< a symlink is reported as Symlink (not followed) by listings
};

/// An entry a download left out, and why.
struct SftpSkipped
{
    enum class Reason
    {
        Symlink,          ///< links inside a folder are not followed
        Special,          ///< a named pipe, socket or device (`mode` tells which)
        ExistsOnHost,     ///< the host already has a file of that name, which was kept
        HostNameTooLong,  ///< its host name would pass the host's 255 bytes per name
        HostPathTooLong,  ///< its host path would pass the host's 4095 bytes per path
        GuestPathTooLong, ///< its guest path passes the 4095 bytes a Linux guest opens
        NearPathLimit,    ///< a folder whose longer names the guest does not list (`detail`)
        Unreadable,       ///< the guest refused to list or read it (`detail` says how)
    };

    QByteArray guestPath;
    Reason reason = Reason::Special;
    quint32 mode = 0; ///< st_mode as listed
    QString detail;   ///< the phrase for Unreadable (the guest's refusal) and NearPathLimit
};

/// Why `skipped` was left out, as a phrase: "a symbolic link (links are not followed)", "a
/// named pipe (special files are not copied)", "already on the host, which kept its own" …
QString skippedReasonText(const SftpSkipped& skipped);

/// What a download copied and what it left out.
struct SftpDownload
{
    int files = 0;              ///< regular files written on the host
    qint64 bytes = 0;           ///< their bytes
    QList<SftpSkipped> skipped; ///< in the order met; empty: everything was copied
};

/// Linux's limits that downloads respect: a path a guest's system call takes, and a host
/// file's name and path (bytes, without the terminating NUL).
constexpr qsizetype kMaxPathBytes = 4095;
constexpr qsizetype kMaxNameBytes = 255;

/// Why a listing of guest folder `folder` may lack entries, or empty. OpenSSH's sftp-server
/// leaves out, without a word, an entry whose path would pass kMaxPathBytes, so in a folder
/// whose path is that long the longer names are missing: "/x… is near the guest's path limit:
/// entries with names longer than 62 bytes are not listed (…)".
QString pathLimitNote(const QByteArray& folder);

/// SFTP on a sandbox's one SSH session (libssh's sftp API on its own channel), for the file
/// tree and transfers. Made by GuestSession::openSftp().
///
/// Every call blocks its caller until the guest answered, so call from worker threads. The
/// session's I/O thread runs the SFTP requests; transfers go in steps of 256 KiB between which
/// shells and execs on the same session are served, so terminals stay live during a large
/// transfer. Calls from several threads are served one step at a time each.
///
/// Paths are raw guest bytes (absolute, or relative to the login folder /root); a path longer
/// than kMaxPathBytes is refused before it is sent, since the guest's kernel would refuse it.
/// Errors are sentences naming the path (written with visibleName(), so its bytes show):
/// "cannot list /x: there is no such file or folder in the guest", "permission denied …",
/// or the session's failure.
class SftpClient
{
public:
    /// Reports a transfer's progress in bytes, on the session's I/O thread after each step.
    using Progress = std::function<void(qint64 done, qint64 total)>;

    ~SftpClient();

    SftpClient(const SftpClient&) = delete;
    SftpClient& operator=(const SftpClient&) = delete;

    /// The entries of folder `path` without "." and "..", in the server's order. `onBatch`, when
    /// given, also receives them in batches of at most 512 as they arrive (on the I/O thread),
    /// so a view can show a large folder before it is complete.
    Expected<QList<SftpEntry>>
    listDirectory(const QByteArray& path,
                  const std::function<void(const QList<SftpEntry>&)>& onBatch = {});

    /// The entry `path` points to, following symlinks; its name is the last path component.
    Expected<SftpEntry> stat(const QByteArray& path);

    /// The absolute canonical form of `path` (".." and symlinks resolved; "." is the login
    /// folder).
    Expected<QByteArray> realpath(const QByteArray& path);

    /// What a download does with a host file that already exists.
    enum class HostFiles
    {
        Replace,
        Keep ///< leaves it as it is and reports it skipped (ExistsOnHost)
    };

    /// Copies the guest file or folder (recursively) `guestPath` to `hostPath`, byte for byte;
    /// `progress` counts file bytes of the whole tree. Inside a folder, an entry's host name is
    /// visibleName() of its guest name, so two guest names never become one host file.
    /// Symlinks, special files, entries whose guest or host path passes Linux's limits and
    /// subfolders or files the guest refuses are left out and listed in the result's `skipped`.
    /// With `maxBytes` ≥ 0 the copy stops with an error ("… is larger than N bytes") once the
    /// tree passes that many bytes, whatever sizes the guest reported.
    Expected<SftpDownload> download(const QByteArray& guestPath, const QString& hostPath,
                                    const Progress& progress = {}, qint64 maxBytes = -1,
                                    HostFiles existing = HostFiles::Replace);

    /// Copies the host file `hostPath` to the guest path `guestPath` (created or truncated,
    /// mode 0644), byte for byte.
    Expected<void> upload(const QString& hostPath, const QByteArray& guestPath,
                          const Progress& progress = {});

    /// Removes the file, symlink or empty folder `path`.
    Expected<void> remove(const QByteArray& path);

    /// Creates folder `path` (mode 0755); its parent must exist.
    Expected<void> mkdir(const QByteArray& path);

private:
    friend class GuestSession;
    struct Shared;
    class SessionJob;
    template <typename T> class Call;

    /// Runs `step` on the I/O thread (session in blocking mode) until it returns a result.
    template <typename T>
    Expected<T> run(std::function<std::optional<Expected<T>>(sftp_session_struct*)> step);

    static Expected<std::unique_ptr<SftpClient>> open(std::shared_ptr<SshSessionThread> loop);
    SftpClient(std::shared_ptr<SshSessionThread> loop, std::shared_ptr<Shared> shared);

    std::shared_ptr<SshSessionThread> m_loop;
    std::shared_ptr<Shared> m_shared;
};

} // namespace sbw
