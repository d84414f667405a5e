#pragma once

#include "action/ActionGate.h"
#include "base/Expected.h"
#include "workspace/WorkspaceCommand.h"

#include <QByteArray>
#include <QStringList>

#include <atomic>
#include <memory>

namespace sbw {

class CommandLog;
class Workspace;

/// What an asked action did in a throwaway fork of its workspace.
struct PreviewReport
{
    QString fork;                   ///< the fork's workspace name
    WorkspaceCommandResult command; ///< exit status or signal, the limit that ended it, file changes
    QByteArray stdoutBytes;         ///< up to ActionPreview::kMaxOutputBytes each
    QByteArray stderrBytes;
    /// "PID ARGS" of the processes that run in the fork after the action and did not before
    /// it, other than children of processes that did (a server it started in the background,
    /// …); untrusted text from the guest.
    QStringList newProcesses;
    qint64 forkMs = 0; ///< making the fork
    qint64 runMs = 0;  ///< the action and the scans around it

    /// "exit status 0 · 3 files changed (1 created, 1 modified, 1 deleted) · 1 new process".
    QString summary() const;
};

/// Runs an asked exec or file write in a throwaway fork of its workspace, as the workspace is
/// now (memory included, so running services answer as they would), and keeps the fork until
/// the person decides: discard() (deny, or approve to run it for real) or adopt() (approve as
/// previewed: the workspace becomes the fork's result). Destroying the object discards the fork.
/// Every call blocks: use from worker threads.
class ActionPreview
{
public:
    static constexpr qint64 kMaxOutputBytes = 256 * 1024;

    /// Forks `workspace` (running or paused; a paused fork is resumed), runs `request` there with
    /// change tracking, lists the new processes. The fork's exec is logged in `log` as the
    /// workbench's ("preview"), on the fork's name. `cancel` set: the command is killed.
    /// Errors: not an exec or file write, the workspace cannot be forked, the fork cannot start.
    static Expected<std::unique_ptr<ActionPreview>> run(std::shared_ptr<Workspace> workspace,
                                                        const ActionRequest& request,
                                                        std::shared_ptr<CommandLog> log,
                                                        const std::atomic_bool* cancel = nullptr);
    ~ActionPreview();

    const PreviewReport& report() const { return m_report; }
    /// Approve as previewed: the workspace previewed becomes the fork's result
    /// (Workspace::adoptFork), then the fork is deleted. Returns what the action did, for the
    /// asker (ApprovalQueue::approveAsPreviewed).
    Expected<PreviewedOutcome> adopt();
    /// Deletes the fork; later calls do nothing.
    Expected<void> discard();

private:
    ActionPreview() = default;
    Expected<void> execute(const ActionRequest& request, std::shared_ptr<CommandLog> log,
                           const std::atomic_bool* cancel);
    struct Process
    {
        qint64 pid = 0;
        qint64 ppid = 0;
        QString args; ///< untrusted text from the guest

        bool isTheWorkbenchs() const; ///< a kernel thread or one of the workbench's own
    };
    Expected<QList<Process>> processes();
    /// Brings the fork's shadow copy of small files up to date (ChangeWatch), so the diffs
    /// show every file the action changes, also those written since the last tracked command.
    Expected<void> refreshShadowCopy(const QString& workdir);

    std::shared_ptr<Workspace> m_source;
    std::unique_ptr<Workspace> m_fork;
    PreviewReport m_report;
};

/// The name of a preview's fork: "preview-<6 hex>", unique enough for the few that exist at once.
QString previewForkName();

} // namespace sbw
