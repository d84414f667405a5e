#include "changes/ChangeScan.h"

#include "base/Logging.h"
#include "changes/ChangeReport.h"
#include "changes/FileChangeBounds.h"

namespace sbw {
namespace {

using namespace file_change_bounds;

/// A scan of kMaxScanEntries takes about 0.3 s under TCG; this only ends a stuck guest.
constexpr std::chrono::seconds kScanTimeout{60};
/// What the exec after may print: the change records, the contents for the diffs and markers.
constexpr qint64 kMaxReportBytes = kMaxChangeRecordBytes + 2 * kMaxDiffFiles * (kMaxDiffFileBytes + 4200) + 4096;

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
    QByteArray output;
    bool overflow = false;
    QByteArray errors;
    ExecRequest request;
    request.command = watch.afterScanCommand();
    request.timeout = kScanTimeout;
    request.onStdout = [&](QByteArrayView bytes) {
        overflow = overflow || output.size() + bytes.size() > kMaxReportBytes;
        if (!overflow)
            output.append(bytes);
    };
    request.onStderr = [&](QByteArrayView bytes) { // for the warning: the first 4 KiB
        errors.append(bytes.first(std::clamp<qsizetype>(4096 - errors.size(), 0, bytes.size())));
    };
    const QString failure = execFailure(exec(request));
    if (!failure.isEmpty()) {
        qCWarning(lcRun) << "file changes unknown:" << failure << errors.trimmed();
        return FileChanges::unknownBecause(watch.folders(), failure);
    }
    if (overflow)
        return FileChanges::unknownBecause(watch.folders(), QStringLiteral("the guest's report passed %1 MiB")
                                                                .arg(kMaxReportBytes >> 20));
    return readChangeReport(output, watch.folders());
}

} // namespace sbw
