#include "changes/ChangeScan.h"

#include "base/Logging.h"
#include "changes/ChangeReport.h"
#include "changes/FileChangeBounds.h"
#include "changes/FileDiff.h"
#include "changes/ScanComparison.h"

#include <atomic>

namespace sbw {
namespace {

using namespace file_change_bounds;

/// A scan of kMaxScanEntries takes about half a second under TCG; this only ends a stuck guest.
constexpr std::chrono::seconds kScanTimeout{60};
/// What the exec after may send: two scans of kMaxScanEntries with names of about 200 bytes
/// (names can be 4 KiB each: this bounds the transfer and the parsing whatever they are). Past
/// it the exec is stopped and the changes are unknown.
constexpr qint64 kMaxScanReportBytes = 2 * kMaxScanEntries * 256;

QString execFailure(const Expected<ExecStatus>& status)
{
    if (!status)
        return status.error().message;
    if (status->timedOut)
        return QStringLiteral("the scan took more than %1 s").arg(kScanTimeout.count());
    if (status->signal)
        return QStringLiteral("the scan was killed by signal %1").arg(*status->signal);
    if (status->exitStatus.value_or(1) != 0)
        return QStringLiteral("the scan ended with exit status %1").arg(status->exitStatus.value_or(-1));
    return {};
}

/// Runs `command` and keeps its stdout up to `maxBytes` (then stops it). Errors: the exec
/// failed, or its output passed `maxBytes`.
Expected<QByteArray> execOutput(const GuestExec& exec, const QByteArray& command, qint64 maxBytes)
{
    QByteArray output;
    std::atomic_bool tooLong{false};
    ExecRequest request;
    request.command = command;
    request.timeout = kScanTimeout;
    request.cancel = &tooLong;
    request.onStdout = [&](QByteArrayView bytes) {
        if (output.size() + bytes.size() > maxBytes)
            tooLong = true;
        else
            output.append(bytes);
    };
    const auto status = exec(request);
    if (tooLong)
        return makeError(QStringLiteral("the guest's answer passed %1 MiB").arg(maxBytes >> 20));
    if (const QString failure = execFailure(status); !failure.isEmpty())
        return makeError(failure);
    return output;
}

bool isSmallFile(char type, qint64 size)
{
    return (type == 'f' || type == 0) && size <= kMaxDiffFileBytes;
}

/// A listed file whose content the diff needs: from the shadow copy (before) and the file (after).
struct DiffSource
{
    FileChange* change;
    QByteArray path;            ///< raw guest path
    const ScanEntry* before;    ///< the scan's record; null when created
    bool needsBefore = false;   ///< a non-empty file before
    bool needsAfter = false;    ///< a non-empty file after
};

/// A file the guest sent no content for: too large, or past the files per row that get a diff.
void noteMissingDiff(FileChange& change)
{
    if (change.typeBefore != 'f' && change.typeAfter != 'f')
        return;
    if (std::max(change.sizeBefore, change.sizeAfter) > kMaxDiffFileBytes)
        change.diffNote = QStringLiteral("larger than %1 KiB: no diff").arg(kMaxDiffFileBytes / 1024);
    else
        change.diffNote = QStringLiteral("no diff: only %1 files per command get one").arg(kMaxDiffFiles);
}

/// The listed files that get a diff (at most kMaxDiffFiles); notes on the others.
QList<DiffSource> diffSources(FileChanges& changes, const ScanPair& scans)
{
    QHash<QString, QByteArray> rawPaths;
    QHash<QByteArray, const ScanEntry*> before;
    for (const ScanEntry& entry : scans.before) {
        before.insert(entry.path, &entry);
        rawPaths.insert(QString::fromUtf8(entry.path), entry.path);
    }
    for (const ScanEntry& entry : scans.after)
        rawPaths.insert(QString::fromUtf8(entry.path), entry.path);
    QList<DiffSource> sources;
    for (FileChange& change : changes.files) {
        const bool file = (change.typeBefore == 'f' || change.typeAfter == 'f') &&
                          isSmallFile(change.typeBefore, change.sizeBefore) &&
                          isSmallFile(change.typeAfter, change.sizeAfter);
        if (!file || sources.size() >= kMaxDiffFiles) {
            noteMissingDiff(change);
            continue;
        }
        const QByteArray path = rawPaths.value(change.path);
        sources.append({&change, path, before.value(path), change.sizeBefore > 0, change.sizeAfter > 0});
    }
    return sources;
}

/// The content of `source`'s file on one side: empty when it had none, nullopt when unknown
/// (the shadow copy holds another version than the scan before saw).
std::optional<QByteArray> sideContent(const QHash<QByteArray, FileContent>& contents, const QByteArray& key,
                                      bool needed, const ScanEntry* expected)
{
    if (!needed)
        return QByteArray();
    const auto found = contents.constFind(key);
    if (found == contents.cend())
        return std::nullopt;
    if (expected && (found->size != expected->size || found->mtimeNs != expected->mtimeNs))
        return std::nullopt;
    return found->bytes;
}

/// Reads the contents the diffs need in one exec and attaches the diffs.
void attachDiffs(const GuestExec& exec, const ChangeWatch& watch, const QList<DiffSource>& sources)
{
    QList<QByteArray> paths;
    for (const DiffSource& source : sources) {
        if (source.needsBefore)
            paths << watch.shadowPath(source.path);
        if (source.needsAfter)
            paths << source.path;
    }
    auto output = paths.isEmpty() ? Expected<QByteArray>(QByteArray("#cat", 5))
                                   : execOutput(exec, watch.contentsCommand(paths),
                                                qint64(paths.size()) * (kMaxDiffFileBytes + 4200) + 64);
    auto contents = output ? readContents(output.value()) : Expected<QHash<QByteArray, FileContent>>(output.error());
    for (const DiffSource& source : sources) {
        if (!contents) {
            source.change->diffNote = QStringLiteral("no diff: %1").arg(contents.error().message);
            continue;
        }
        attachDiff(*source.change,
                   sideContent(contents.value(), watch.shadowPath(source.path), source.needsBefore, source.before),
                   sideContent(contents.value(), source.path, source.needsAfter, nullptr));
    }
}

} // namespace

GuestExec sessionExec(GuestSession& session)
{
    return [&session](const ExecRequest& request) { return session.exec(request); };
}

Expected<void> scanBefore(const GuestExec& exec, const ChangeWatch& watch)
{
    ExecRequest request;
    request.command = watch.beforeScanCommand() + " && test -s " + watch.beforeFile();
    request.timeout = kScanTimeout;
    const QString failure = execFailure(exec(request));
    if (!failure.isEmpty())
        return makeError(QStringLiteral("cannot scan the guest's files: %1").arg(failure));
    return {};
}

FileChanges scanAfter(const GuestExec& exec, const ChangeWatch& watch)
{
    auto output = execOutput(exec, watch.afterScanCommand(), kMaxScanReportBytes);
    auto scans = output ? readScanReport(output.value(), watch.folders()) : Expected<ScanPair>(output.error());
    if (!scans) {
        qCWarning(lcRun) << "file changes unknown:" << scans.error().message;
        return FileChanges::unknownBecause(watch.folders(), scans.error().message);
    }
    FileChanges changes = compareScans(scans->before, scans->after, kMaxListedFiles);
    changes.folders = watch.folders();
    const QList<DiffSource> sources = diffSources(changes, scans.value());
    if (!sources.isEmpty())
        attachDiffs(exec, watch, sources);
    return changes;
}

} // namespace sbw
