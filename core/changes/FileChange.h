#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace sbw {

/// How one entry of a watched folder differs after a command.
enum class ChangeKind
{
    Created,
    Modified, ///< a file's size, mtime (ns) or type changed; a folder only when its type did
    Deleted,
};
QString changeKindName(ChangeKind kind); ///< "created", "modified", "deleted" (stored)
std::optional<ChangeKind> changeKindFromName(const QString& name);

/// One created, modified or deleted entry, as one command-log row lists it.
struct FileChange
{
    QString path; ///< absolute guest path, decoded as UTF-8 (invalid bytes replaced); untrusted
    ChangeKind kind = ChangeKind::Modified;
    /// find's %y letter before and after: 'f' file, 'd' folder, 'l' symlink, 'p', 's', 'b',
    /// 'c'; 0 where the entry did not exist.
    char typeBefore = 0;
    char typeAfter = 0;
    qint64 sizeBefore = -1; ///< bytes; -1 where it did not exist (folders: 0)
    qint64 sizeAfter = -1;
    /// Unified diff of a text file (`diff -u`), secrets masked; empty when none was made
    /// (diffNote says why) or, in rows from CommandLog::rows(), not loaded (hasDiff).
    QByteArray diff;
    bool hasDiff = false;
    /// Why there is no diff: "binary", "larger than 64 KiB", "content before the command not
    /// kept", …; empty when there is one or for folders and other non-files.
    QString diffNote;

    /// "file", "folder", "symlink", … for the entry's type after (before when deleted).
    QString typeName() const;
};

/// What one command changed in its watched folders: the files listed (at most
/// FileChangeBounds::kMaxListedFiles) and the totals, or why the changes are unknown.
struct FileChanges
{
    bool tracked = false;   ///< false: the row has no change tracking (other kinds, older rows)
    QString unknown;        ///< non-empty: the changes could not be determined, and why
    QStringList folders;    ///< the guest folders that were watched
    QList<FileChange> files; ///< by path
    qint64 created = 0;     ///< totals, the listed files and the ones past the bound
    qint64 modified = 0;
    qint64 deleted = 0;

    qint64 total() const { return created + modified + deleted; }
    qint64 notListed() const { return total() - files.size(); } ///< past the bound
    static FileChanges unknownBecause(const QStringList& folders, const QString& reason);
    /// One line: "3 files changed (1 created, 1 modified, 1 deleted)", "no files changed",
    /// "file changes unknown: REASON"; empty when not tracked.
    QString summary() const;
    /// "1,204 more files changed, not listed" when the list was bounded; empty otherwise.
    QString moreText() const;
};

} // namespace sbw
