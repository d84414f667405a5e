#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace sbw {

/// The guest folders in which one command's file changes are looked for, and the shell text
/// that looks. Every program started in the guest costs 15-20 ms under TCG, so each step starts
/// as few as it can and the comparison runs on the host:
/// - beforeScanCommand(), run in the command's own exec (no round trip of its own): `find | head`
///   into a file;
/// - afterScanCommand(), one exec after it: that file and a new scan, both sent to the host;
/// - contentsCommand(), a second exec only when small files changed: their content now and in
///   the shadow copy (stat + cat), for the diffs.
/// The shadow copy (kStateFolder/shadow: files up to kMaxDiffFileBytes, by path) holds the
/// content before the next command; it is refreshed in the background after that exec, so no
/// command waits for it. See ARCHITECTURE.md, "File changes".
class ChangeWatch
{
public:
    /// Guest folder of the shadow copy; it, and the scans' files beside it, are never scanned.
    static inline const QByteArray kStateFolder = QByteArrayLiteral("/var/cache/sbw-changes");

    /// A command's folders: /root (where a person's and an agent's files live) and its working
    /// folder when that is not inside /root.
    static ChangeWatch forCommand(const QString& workdir);
    /// Exactly `folders` (absolute; a folder inside another one is dropped), with the state in
    /// `stateFolder` (tests run the commands on the host in a temporary folder).
    explicit ChangeWatch(const QStringList& folders, const QByteArray& stateFolder = kStateFolder);

    QStringList folders() const { return m_folders; }
    QByteArray token() const { return m_token; } ///< this command's, random
    QByteArray beforeFile() const { return m_state + '.' + m_token + ".before"; } ///< in the guest
    QByteArray shadowPath(const QByteArray& path) const { return m_state + "/shadow" + path; }
    QByteArray stampFile() const; ///< in the guest: when the shadow copy of these folders was refreshed

    /// A compound shell command that scans the folders into beforeFile() and always succeeds
    /// (errors go nowhere: the exec after then says the list is missing). Two programs.
    QByteArray beforeScanCommand() const;
    /// The exec after the command. Prints, records separated by NUL: "#unknown REASON" alone, or
    /// "#before", the scan before, "#after", the scan now, "#end". Starts the first refresh
    /// of the shadow copy in the background. Two or three programs.
    QByteArray afterScanCommand() const;
    /// The exec for the diffs: "SIZE MTIME PATH" of each of `paths` that exists (stat), "#cat",
    /// then their bytes one after the other (cat); then refreshes the shadow copy in the
    /// background. Read with readContents().
    QByteArray contentsCommand(const QList<QByteArray>& paths) const;

    /// Brings the shadow copy up to date before the exec ends (a preview's fork, whose action
    /// should show diffs of every small file, including those written by untracked commands).
    QByteArray refreshNowCommand() const;

private:
    QByteArray scanPipeline() const;
    QByteArray refreshScript() const; ///< `sh -c …`: one refresh, in the foreground
    QByteArray refreshCommand() const; ///< the shadow copy's refresh, in the background
    /// A shell condition: a refresh started by an earlier command still runs.
    QByteArray refreshRunning() const;
    QByteArray refreshPidFile() const { return m_state + "/refresh.pid"; }

    QStringList m_folders;
    QByteArray m_state;
    QByteArray m_token;
};

} // namespace sbw
