#pragma once

#include "action/ActionRecord.h"
#include "base/Expected.h"
#include "workspace/WorkspaceCheckpoint.h"
#include "workspace/WorkspaceRecord.h"
#include "workspace/WorkspaceState.h"

#include <QObject>
#include <QSet>
#include <functional>
#include <memory>

class QAction;
class QWidget;

namespace sbw {

class CommandLog;
class HypervisorConnection;
class Workspace;
class WorkspaceManager;
struct ForkOptions;

/// How a lifecycle operation on a workspace ended, as WorkspaceActions::operationFinished()
/// reports it.
struct OperationReport
{
    QString workspace;
    QString what;          ///< the action's name, e.g. "Pause"
    Expected<void> result; ///< the operation's error, if it failed
    QString notice;        ///< how it went when that matters (a stop: StopOutcome::summary())
    bool warning = false;  ///< the person must know (a stop that forced the guest off)
    std::optional<ActionKind> kind; ///< the action's command-log kind, when it has one
    QString detail;                 ///< what it acted on (a revert: the checkpoint's name)
    QString made;                   ///< the workspace it made, if any (a fork)
};

/// The lifecycle actions of the selected workspace — New, Start, Stop, Pause, Resume,
/// Hibernate, Wake, Checkpoint, Fork, Delete — shared by the toolbar, the menus, the session
/// list's context menu and the workspace pane. Each is enabled from the state predicates
/// (canPause() …) of the selected workspace's libvirt state, as virt-manager does, and
/// disabled while an operation on that workspace is in flight.
///
/// Operations block in libvirt or SSH, so they run on Qt's thread pool; their outcome comes
/// back as operationFinished() on the GUI thread, and the new state arrives through the
/// WorkspaceManager's domain events. Delete and revert ask first and say what will be lost.
class WorkspaceActions : public QObject
{
    Q_OBJECT

public:
    WorkspaceActions(HypervisorConnection* connection, WorkspaceManager* manager,
                     QWidget* dialogParent);

    /// The hosts a new workspace may go to, the default first (the workbench's); without it,
    /// the connection given to the constructor.
    void setHosts(std::function<QList<HypervisorConnection*>()> hosts) { m_hosts = std::move(hosts); }

    QAction* newAction() const { return m_new; }
    QAction* startAction() const { return m_start; }
    QAction* stopAction() const { return m_stop; }
    QAction* pauseAction() const { return m_pause; }
    QAction* resumeAction() const { return m_resume; }
    QAction* hibernateAction() const { return m_hibernate; }
    QAction* wakeAction() const { return m_wake; }
    QAction* checkpointAction() const { return m_checkpoint; }
    /// Workspace ▸ Fork…: ForkDialog, then the fork (see fork()).
    QAction* forkAction() const { return m_fork; }
    /// Checkable: the current workspace takes a checkpoint before each agent action a person
    /// approves (Workspace::setCheckpointBeforeApproved).
    QAction* checkpointBeforeApprovedAction() const { return m_checkpointBeforeApproved; }
    /// Workspace ▸ New Terminal (Ctrl+Shift+T): newTerminalRequested() for the current one.
    QAction* newTerminalAction() const { return m_newTerminal; }
    QAction* deleteAction() const { return m_delete; }
    /// The lifecycle actions in toolbar order (New and Delete excluded).
    QList<QAction*> lifecycleActions() const;

    /// The workspace the actions act on; empty for none.
    QString current() const { return m_current; }
    bool isBusy(const QString& name) const { return m_busy.contains(name); }
    /// Logs every operation from now on as a person's row in `log` (null: no logging).
    void setCommandLog(std::shared_ptr<CommandLog> log);
    /// Forks the current workspace into a new workspace `name` (Workspace::fork()) on the
    /// thread pool, logged as a person's Fork row on the source, and gives the fork a copy of
    /// the source's policy rules (Policy::copyWorkspace(), as `sbw ws fork` does).
    /// forkStarted() now; operationFinished() (its `made` the fork) and, on success,
    /// workspaceCreated() follow.
    void fork(const QString& name, const ForkOptions& options);

public Q_SLOTS:
    void setCurrent(const QString& name);
    /// Re-reads the enabled state of every action.
    void updateEnabled();
    /// Asks for confirmation (RevertImpact::describe()) and reverts the current workspace.
    void revertTo(const QString& checkpoint);
    /// Asks for confirmation and deletes one checkpoint of the current workspace.
    void deleteCheckpoint(const QString& checkpoint);
    /// Creates workspace `name` with `settings` (what New asks with NewWorkspaceDialog) on the
    /// thread pool; operationFinished() and, on success, workspaceCreated() follow. With
    /// `start`, the workspace is then started (a Start operation of its own); otherwise it
    /// stays shut off. `host`: the URI of one of setHosts()' hosts; empty: the default one.
    /// workspaceCreated() names it as the manager does (NAME@HOST off the first host).
    void create(const QString& name, const sbw::WorkspaceSettings& settings, bool start = false,
                const QString& host = {});

Q_SIGNALS:
    /// An operation ended.
    void operationFinished(const sbw::OperationReport& report);
    /// The checkpoints of `workspace` may have changed (checkpoint, revert, delete).
    void checkpointsChanged(const QString& workspace);
    /// A workspace was created (shut off, unless it is a fork of a running one; a start asked
    /// for follows) and should be selected.
    void workspaceCreated(const QString& workspace);
    /// A fork of `source` into `fork` began; operationFinished() ends it.
    void forkStarted(const QString& source, const QString& fork);
    /// New Terminal was chosen for `workspace`.
    void newTerminalRequested(const QString& workspace);

private:
    /// Turns Checkpoint Before Approved Actions on or off for the current workspace.
    void setCheckpointBeforeApproved(bool on);
    QAction* makeAction(const QString& text, const QString& icon, const QKeySequence& shortcut,
                        const QString& tip);
    /// Runs `operation` for the current workspace on the thread pool, logged as a `kind` row
    /// with `detail` (checkpoint name, ...) as its command.
    void run(const QString& what, ActionKind kind, const QString& detail,
             std::function<Expected<void>(Workspace&)> operation, bool changesCheckpoints = false);
    /// The same for the workspace `name` (a new one that is not selected yet).
    void runOn(const QString& name, const QString& what, ActionKind kind, const QString& detail,
               std::function<Expected<void>(Workspace&)> operation,
               bool changesCheckpoints = false);
    /// Runs `task` (which writes its own log row) for workspace `name` on the thread pool;
    /// the report it returns gets the workspace's name and `what` filled in.
    void runTask(const QString& name, const QString& what,
                 std::function<OperationReport(Workspace&)> task, bool changesCheckpoints);
    /// Starts workspace `name` (Start), logged.
    void startWorkspace(const QString& name);
    void stopWorkspace();
    void createWorkspace();
    void takeCheckpoint();
    /// Asks with ForkDialog, then fork().
    void askFork();
    void deleteWorkspace();

    HypervisorConnection* m_connection;
    std::function<QList<HypervisorConnection*>()> m_hosts;
    WorkspaceManager* m_manager;
    QWidget* m_dialogParent;
    QString m_current;
    QSet<QString> m_busy;
    std::shared_ptr<CommandLog> m_log;
    QAction* m_new;
    QAction* m_start;
    QAction* m_stop;
    QAction* m_pause;
    QAction* m_resume;
    QAction* m_hibernate;
    QAction* m_wake;
    QAction* m_checkpoint;
    QAction* m_fork;
    QAction* m_checkpointBeforeApproved;
    QAction* m_newTerminal;
    QAction* m_delete;
};

} // namespace sbw
