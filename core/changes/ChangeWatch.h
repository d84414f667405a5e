#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace sbw {

/// The guest folders in which one command's file changes are looked for, and the shell text
/// that looks: a scan before the command (beforeScanCommand(), meant to run in the command's own
/// exec so that it costs no extra round trip) and one exec after it (afterScanCommand()). Both
/// keep their state under kStateFolder in the guest: the scan before, per command (token()), and
/// per set of folders a shadow copy of small text files, the content before the next command
/// that diffs need. See ARCHITECTURE.md, "File changes".
class ChangeWatch
{
public:
    /// Guest folder of the scans and shadow copies; never scanned itself.
    static inline const QByteArray kStateFolder = QByteArrayLiteral("/var/cache/sbw-changes");

    /// A command's folders: /root (where a person's and an agent's files live) and its working
    /// folder when that is not inside /root.
    static ChangeWatch forCommand(const QString& workdir);
    /// Exactly `folders` (absolute; a folder inside another one is dropped), with the state in
    /// `stateFolder` (tests run the scripts on the host in a temporary folder).
    explicit ChangeWatch(const QStringList& folders, const QByteArray& stateFolder = kStateFolder);

    QStringList folders() const { return m_folders; }
    QByteArray token() const { return m_token; } ///< this command's, random
    /// The guest file the scan before writes.
    QByteArray beforeFile() const { return m_state + "/cmd/" + m_token + ".before"; }

    /// A compound shell command that scans the folders into this command's file in the guest
    /// and always succeeds (errors go nowhere: the scan after then reports what is missing).
    QByteArray beforeScanCommand() const;
    /// The shell command of the exec after the command: scans again, prints the records that
    /// differ, the contents of up to kMaxDiffFiles small files before and after, then refreshes
    /// the shadow copy. Read its output with readChangeReport().
    QByteArray afterScanCommand() const;

private:
    QByteArray scanPipeline() const;
    QByteArray stateKey() const; ///< names the folders' shadow copy

    QStringList m_folders;
    QByteArray m_state;
    QByteArray m_token;
};

} // namespace sbw
