#pragma once

#include "action/ActionRecord.h"
#include "changes/FileChange.h"
#include "base/OutputStream.h"
#include "guest/GuestSession.h"
#include "run/EphemeralRun.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace sbw {

class CommandLog;
class Workspace;
struct WorkspaceCommandResult;

/// One command to run in a workspace with its limits, for every caller (the GUI's command
/// line, `sbw ws exec`, agents).
struct WorkspaceCommandOptions
{
    QString command;          ///< as the person or agent gave it: the command log's text
    QByteArray shellCommand;  ///< what the guest's shell runs (workspaceShellCommand(), Workspace::commandLine())
    QString workdir;          ///< for the log
    std::chrono::seconds timeout{0}; ///< wall-clock limit; 0 = none
    /// Bytes let through per stream; when stdout or stderr passes it, the rest is dropped and
    /// the command killed. 0 = none.
    qint64 outputCapBytes = RunOptions::kDefaultOutputCapBytes;
    /// Output as it arrives (after the cap), on the session's I/O thread.
    std::function<void(OutputStream, QByteArrayView)> onOutput;
    QByteArray stdinData; ///< written to the command's stdin, then end of file
    const std::atomic_bool* cancel = nullptr; ///< set to true: the command is killed
    std::chrono::steady_clock::time_point readyDeadline; ///< how long to wait for a starting guest
    std::shared_ptr<CommandLog> log; ///< null: not logged
    Actor actor;
    /// Lists the files the command created, modified and deleted in /root and `workdir`
    /// (ChangeWatch::forCommand; a scan in the command's own exec and one exec after it). Off
    /// only to measure what it costs (tests/bench).
    bool trackFileChanges = true;
    /// Called once on every path, when the command has ended (its status and limit known) or
    /// could not run, before its file changes are scanned (on the calling thread; `fileChanges`
    /// not filled yet): a person's window shows the end at once, and the row's files follow
    /// when runWorkspaceCommand() returns.
    std::function<void(const WorkspaceCommandResult&)> onEnded;
};

/// How a workspace command ended.
struct WorkspaceCommandResult
{
    ExecStatus status; ///< valid when error is empty
    QString error;     ///< a sentence when the command could not run or the session broke
    /// The limit that ended the command: Timeout and OutputCap are the host's decisions; Memory
    /// (the guest's OOM killer ran while it ran) and Disk (the root file system is full) are
    /// looked up in the guest after a command that failed on its own.
    std::optional<RunLimit> limit;
    /// What happened, e.g. "the timeout of 5 s ran out; the command was killed", "stdout passed
    /// the output cap of 65536 bytes; the rest was dropped and the command killed", "the memory
    /// limit of 256 MiB was hit: the guest's kernel killed python3 (pid 231) for lack of memory",
    /// "the disk limit of 5 GiB was hit: the workspace's root file system is full". Also the
    /// error text of the command's log row.
    QString limitNote;
    qint64 wallMs = 0; ///< from the call to the end of the command (before the scan after it), ms
    /// What the command changed, or why that is unknown; not tracked when the command did not
    /// run or WorkspaceCommandOptions::trackFileChanges is off.
    FileChanges fileChanges;

    /// One line: the error, "cancelled", the limit note, "killed by signal 9 (SIGKILL)", "exit status 3".
    QString summary() const;
    /// Exit code for the CLI: the command's status; 128+N for signal N; 124 on timeout; 137
    /// when the output cap was passed; 130 when cancelled; 125 when the workbench failed.
    int cliExitCode() const;
};

/// Runs one command in `workspace` (Workspace::exec, so with its environment) under `options`'
/// limits, logs it as an exec row of `options.actor` (the workspace's secret values registered
/// with the log first, so the row's command and output are masked) and names the limit that
/// ended it in the result and in the row's error. Blocks: call on a worker thread.
WorkspaceCommandResult runWorkspaceCommand(Workspace& workspace,
                                           const WorkspaceCommandOptions& options);

} // namespace sbw
