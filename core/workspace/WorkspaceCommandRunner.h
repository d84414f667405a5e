#pragma once

#include "action/ActionRecord.h"
#include "base/OutputBatcher.h"
#include "workspace/WorkspaceCommand.h"

#include <QObject>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace sbw {

class CommandLog;
class Workspace;

/// How one command in a workspace ended, for the controller's finished() signal: status or
/// error, the limit that ended it, wallMs from start() to the end.
struct WorkspaceCommandOutcome : WorkspaceCommandResult
{
    QString command; ///< the command line as typed
};

/// Runs one shell command at a time in a workspace (runWorkspaceCommand) on a worker thread, for
/// the GUI's command line. Output arrives batched (OutputBatcher: at most one burst per 50 ms)
/// on the controller's thread, then ended() as soon as the command has ended (its status, no
/// file changes yet), then finished() once its file changes are listed and its row is done;
/// the runner takes the next command after finished(). Destroying the controller cancels a command
/// in progress (its guest session is killed) and waits for the worker.
class WorkspaceCommandRunner : public QObject
{
    Q_OBJECT

public:
    explicit WorkspaceCommandRunner(QObject* parent = nullptr);
    ~WorkspaceCommandRunner() override;

    bool isRunning() const { return m_running; }

    /// Logs each command from now on as an exec row of `actor` in `log` (null: no logging).
    void setCommandLog(std::shared_ptr<CommandLog> log, Actor actor);

    /// Runs `command` with `/bin/sh -c` semantics (the guest user's shell) in `workdir` of
    /// `workspace`, killed after `timeout` (0: none) or when stdout or stderr passes
    /// `outputCapBytes` (0: none). A starting guest is waited for up to 120 s. Returns false
    /// while a command runs.
    bool start(std::shared_ptr<Workspace> workspace, const QString& command,
               const QString& workdir, std::chrono::seconds timeout,
               qint64 outputCapBytes = RunOptions::kDefaultOutputCapBytes);
    /// Kills the running command; finished() follows with status.cancelled set.
    void cancel() { m_cancel = true; }

Q_SIGNALS:
    void outputReceived(sbw::OutputStream stream, const QByteArray& bytes);
    /// The command's end: all its output has been delivered; outcome.fileChanges is not filled.
    void ended(const sbw::WorkspaceCommandOutcome& outcome);
    void finished(const sbw::WorkspaceCommandOutcome& outcome);

private:
    void joinWorker();

    std::atomic_bool m_cancel{false};
    bool m_running = false;
    std::thread m_worker;
    OutputBatcher m_output;
    std::shared_ptr<CommandLog> m_log;
    Actor m_actor;
};

/// The shell command line that runs `command` (as typed) in `workdir`: "cd 'DIR' && COMMAND".
QByteArray workspaceShellCommand(const QString& command, const QString& workdir);

} // namespace sbw

Q_DECLARE_METATYPE(sbw::WorkspaceCommandOutcome)
