#include "workspace/WorkspaceCommand.h"

#include "base/Logging.h"
#include "base/SignalText.h"
#include "changes/ChangeScan.h"
#include "guest/GuestLimitProbe.h"
#include "log/CommandLog.h"
#include "log/LoggedAction.h"
#include "run/OutputCap.h"
#include "sandbox/SandboxLimits.h"
#include "workspace/Workspace.h"

#include <QElapsedTimer>


namespace sbw {
namespace {

/// After a command that failed on its own: whether the guest's OOM killer ran while it ran, or
/// the root file system is full.
void lookForGuestLimits(Workspace& workspace, const WorkspaceCommandOptions& options,
                        WorkspaceCommandResult& result)
{
    auto session = workspace.session(options.readyDeadline);
    auto report = session ? probeGuestLimits(*session.value())
                          : Expected<GuestLimitReport>(session.error());
    if (!report) {
        qCWarning(lcRun) << "cannot ask workspace" << workspace.name()
                         << "about its memory and disk:" << report.error().message;
        return;
    }
    const WorkspaceSettings& settings = workspace.record().settings;
    if (report->oomKillWithin(double(result.wallMs) / 1000.0)) {
        result.limit = RunLimit::Memory;
        result.limitNote =
            QStringLiteral("the memory limit of %1 MiB was hit: the guest's kernel killed %2 for "
                           "lack of memory")
                .arg(settings.memoryMiB)
                .arg(report->oomVictim.isEmpty() ? QStringLiteral("a process") : report->oomVictim);
    } else if (report->rootFull()) {
        result.limit = RunLimit::Disk;
        result.limitNote =
            QStringLiteral("the disk limit of %1 was hit: the workspace's root file system is full")
                .arg(gibText(qint64(settings.diskGiB) << 30));
    }
}

ActionEnd logEnd(const WorkspaceCommandResult& result)
{
    ActionEnd end = LoggedAction::endOf(result.error.isEmpty()
                                            ? Expected<ExecStatus>(result.status)
                                            : Expected<ExecStatus>(makeError(result.error)));
    end.fileChanges = result.fileChanges;
    if (result.error.isEmpty() && !result.limitNote.isEmpty()) {
        end.error = result.limitNote;
        if (end.outcome == Outcome::Succeeded)
            end.outcome = Outcome::Failed; // passed the output cap: its output is incomplete
    }
    return end;
}

} // namespace

QString WorkspaceCommandResult::summary() const
{
    if (!error.isEmpty())
        return error;
    if (status.cancelled)
        return QStringLiteral("cancelled");
    if (!limitNote.isEmpty())
        return limitNote;
    if (status.signal)
        return QStringLiteral("killed by signal %1").arg(signalText(*status.signal));
    if (status.exitStatus)
        return QStringLiteral("exit status %1").arg(*status.exitStatus);
    return QStringLiteral("ended without an exit status");
}

int WorkspaceCommandResult::cliExitCode() const
{
    if (!error.isEmpty())
        return RunResult::kWorkbenchError;
    if (status.cancelled)
        return 130;
    if (status.timedOut)
        return 124;
    if (limit == RunLimit::OutputCap)
        return 128 + 9;
    if (status.signal)
        return 128 + *status.signal;
    return status.exitStatus.value_or(RunResult::kWorkbenchError);
}

WorkspaceCommandResult runWorkspaceCommand(Workspace& workspace,
                                           const WorkspaceCommandOptions& options)
{
    QElapsedTimer clock;
    clock.start();
    WorkspaceCommandResult result;
    auto environment = workspace.environment();
    if (options.log && environment)
        options.log->setSecrets(workspace.name(), environment->secretValues());
    ActionStart start;
    start.sandbox = workspace.name();
    start.actor = options.actor;
    start.kind = ActionKind::Exec;
    start.command = options.command;
    start.workdir = options.workdir;
    LoggedAction action(options.log, start);
    const auto ended = [&] {
        if (options.onEnded)
            options.onEnded(result);
    };
    if (!environment) {
        result.error = environment.error().message;
        result.wallMs = clock.elapsed();
        ended();
        action.finish(logEnd(result));
        return result;
    }

    OutputCap cap(options.outputCapBytes);
    const auto keep = [&](OutputStream which, QByteArrayView bytes) {
        bytes = cap.admit(which, bytes);
        if (bytes.isEmpty())
            return;
        action.output(which, bytes);
        if (options.onOutput)
            options.onOutput(which, bytes);
    };
    const ChangeWatch watch = ChangeWatch::forCommand(options.workdir);
    ExecRequest request;
    // The scan before runs in the command's own exec: no round trip of its own.
    request.command = options.trackFileChanges ? watch.beforeScanCommand() + "; " + options.shellCommand
                                               : options.shellCommand;
    request.timeout = options.timeout;
    request.stdinData = options.stdinData;
    // The session watches the caller's flag and the output cap's.
    request.cancel = &cap.passed();
    request.cancel.add(options.cancel);
    request.onStdout = [&](QByteArrayView bytes) { keep(OutputStream::Stdout, bytes); };
    request.onStderr = [&](QByteArrayView bytes) { keep(OutputStream::Stderr, bytes); };
    auto status = workspace.exec(request, options.readyDeadline);
    result.wallMs = clock.elapsed();
    if (!status) {
        result.error = status.error().message;
        ended();
        action.finish(logEnd(result));
        return result;
    }
    result.status = status.value();
    if (cap.passed()) {
        result.limit = RunLimit::OutputCap;
        result.limitNote = cap.note();
    }
    // Killed for the output cap, not cancelled by the caller.
    const bool callerCancelled = options.cancel && *options.cancel;
    if (result.limit == RunLimit::OutputCap) {
        result.status.cancelled = callerCancelled;
        if (result.status.signal)
            result.limitNote += QLatin1String(" and the command killed");
    }
    if (result.status.timedOut) {
        result.limit = RunLimit::Timeout;
        result.limitNote = QStringLiteral("the timeout of %1 s ran out; the command was killed")
                               .arg(options.timeout.count());
    }
    const bool failed = result.status.signal || result.status.exitStatus.value_or(0) != 0;
    if (failed && !result.status.timedOut && !result.status.cancelled && !result.limit)
        lookForGuestLimits(workspace, options, result);
    ended();
    if (options.trackFileChanges)
        result.fileChanges = scanAfter(
            [&](const ExecRequest& scan) { return workspace.exec(scan, options.readyDeadline); }, watch);
    action.finish(logEnd(result));
    return result;
}

} // namespace sbw
