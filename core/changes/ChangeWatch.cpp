#include "changes/ChangeWatch.h"

#include "changes/FileChangeBounds.h"

#include <QCryptographicHash>
#include <QDir>
#include <QRandomGenerator>

namespace sbw {
namespace {

using namespace file_change_bounds;

QByteArray shellQuoted(const QByteArray& word)
{
    QByteArray quoted = word;
    quoted.replace('\'', "'\\''");
    return '\'' + quoted + '\'';
}

/// Runs in the background under a lock (a second refresh at once does nothing): copies the
/// small files changed since the folders' stamp (all of them the first time) into the shadow
/// copy, keeping their mtime (size and mtime say which content it holds), then moves the stamp.
/// Past the disk budget the copy starts over. $1 state folder, $2 stamp.
const char kRefreshScript[] = "cd / && mkdir -p \"$1/shadow\" && touch \"$2.next\" && "
                              "{ if [ -e \"$2\" ]; then @FIND@ -cnewer \"$2\" -print0; else @FIND@ -print0; fi; } "
                              "| head -z -n @MAXSHADOW@ | xargs -0r cp --parents -p -t \"$1/shadow\" -- ; "
                              "mv -f \"$2.next\" \"$2\"; "
                              "[ \"$(du -sk \"$1/shadow\" | cut -f1)\" -le @BUDGET@ ] || rm -rf \"$1/shadow\" \"$2\"";

} // namespace

ChangeWatch ChangeWatch::forCommand(const QString& workdir)
{
    QStringList folders{QStringLiteral("/root")};
    if (!workdir.isEmpty())
        folders.append(workdir);
    return ChangeWatch(folders);
}

ChangeWatch::ChangeWatch(const QStringList& folders, const QByteArray& stateFolder) : m_state(stateFolder)
{
    QStringList clean;
    for (const QString& folder : folders) {
        if (folder.startsWith(QLatin1Char('/')))
            clean.append(QDir::cleanPath(folder));
    }
    clean.sort();
    clean.removeDuplicates();
    for (const QString& folder : clean) {
        const bool inside = std::any_of(m_folders.begin(), m_folders.end(), [&](const QString& outer) {
            return outer == QLatin1String("/") || folder.startsWith(outer + QLatin1Char('/'));
        });
        if (!inside)
            m_folders.append(folder);
    }
    m_token = QByteArray::number(QRandomGenerator::global()->generate64(), 16);
}

QByteArray ChangeWatch::stampFile() const
{
    const QByteArray key = QCryptographicHash::hash(m_folders.join(QLatin1Char('\n')).toUtf8(), QCryptographicHash::Sha1)
                               .toHex()
                               .left(16);
    return m_state + "/stamp-" + key;
}

QByteArray ChangeWatch::scanPipeline() const
{
    QByteArray roots;
    for (const QString& folder : m_folders)
        roots += shellQuoted(folder.toUtf8()) + ' ';
    // -xdev: other file systems (/proc, /sys, /dev, /run, mounts) are not the command's files;
    // the prunes cover a folder of `/` itself and the scans' own state. Folders are written
    // with size and mtime 0 (ScanEntry). head bounds the scan: find stops at the next write.
    return "find " + roots + "-xdev \\( -path " + shellQuoted(m_state) + "'*' -o -path /proc -o -path /sys"
           " -o -path /dev -o -path /run \\) -prune -o \\( -type d -printf '%p\\td 0 0\\0' -o"
           " -printf '%p\\t%y %s %T@\\0' \\) 2>/dev/null | head -z -n " + QByteArray::number(kMaxScanEntries + 1);
}

QByteArray ChangeWatch::refreshScript() const
{
    QByteArray roots;
    for (const QString& folder : m_folders)
        roots += shellQuoted(folder.toUtf8()) + ' ';
    const QByteArray find = "find " + roots + "-xdev \\( -path \"$1\"'*' -o -path /proc -o -path /sys -o -path /dev"
                            " -o -path /run \\) -prune -o -type f -size -" + QByteArray::number(kMaxDiffFileBytes + 1) + "c";
    QByteArray script(kRefreshScript);
    script.replace("@MAXSHADOW@", QByteArray::number(kMaxShadowFilesPerCommand))
        .replace("@BUDGET@", QByteArray::number(kShadowBudgetKiB))
        .replace("@FIND@", find); // last: it holds the caller's folders
    return "sh -c " + shellQuoted(script) + " sh " + shellQuoted(m_state) + ' ' + shellQuoted(stampFile());
}

QByteArray ChangeWatch::refreshCommand() const
{
    // The pid file, written here and not by the job, is there before the exec ends, so the next
    // command's scan before waits for the job (beforeScanCommand()); a refresh still running
    // (its pid alive) makes this one unnecessary.
    // The job removes the pid file itself: once it ended, its pid may be a zombie's or reused.
    return "if ! " + refreshRunning() + "; then { flock -n " + shellQuoted(m_state + "/lock") + ' ' + refreshScript() +
           "; rm -f " + shellQuoted(refreshPidFile()) + "; } </dev/null >/dev/null 2>&1 & echo $! >" +
           shellQuoted(refreshPidFile()) + "; fi";
}

QByteArray ChangeWatch::refreshNowCommand() const
{
    // flock without -n: a refresh running in the background is waited for, then this one
    // copies what changed since.
    return "mkdir -p " + shellQuoted(m_state) + " && flock " + shellQuoted(m_state + "/lock") + ' ' + refreshScript();
}

QByteArray ChangeWatch::refreshRunning() const
{
    return "{ [ -e " + shellQuoted(refreshPidFile()) + " ] && read p <" + shellQuoted(refreshPidFile()) +
           " && [ -d /proc/$p ]; } 2>/dev/null";
}

QByteArray ChangeWatch::beforeScanCommand() const
{
    // A refresh of the shadow copy still running (started by the command before) holds the
    // content before this command: wait for it, kMaxRefreshWaitTicks × 50 ms at most. Builtins
    // only while none runs.
    const QByteArray wait = "i=0; while " + refreshRunning() + " && [ $i -lt " + QByteArray::number(kMaxRefreshWaitTicks) +
                            " ]; do sleep 0.05; i=$((i+1)); done; ";
    return "{ " + wait + scanPipeline() + " >" + shellQuoted(beforeFile()) + "; } 2>/dev/null || true";
}

QByteArray ChangeWatch::afterScanCommand() const
{
    const QByteArray before = shellQuoted(beforeFile());
    return "if [ ! -f " + before + " ]; then printf '#unknown %s\\0' 'the scan before the command left no list'; "
           "exit 0; fi; printf '#before\\0'; cat " + before + "; printf '\\0#after\\0'; " + scanPipeline() +
           "; printf '\\0#end\\0'; rm -f " + before + " </dev/null >/dev/null 2>&1 & [ -e " + shellQuoted(stampFile()) +
           " ] || { mkdir -p " + shellQuoted(m_state) + "; " + refreshCommand() + "; }";
}

QByteArray ChangeWatch::contentsCommand(const QList<QByteArray>& paths) const
{
    QByteArray words;
    for (const QByteArray& path : paths)
        words += ' ' + shellQuoted(path);
    return "stat --printf '%s %.9Y %n\\0' --" + words + " 2>/dev/null; printf '#cat\\0'; cat --" + words +
           " 2>/dev/null; " + refreshCommand();
}

} // namespace sbw
