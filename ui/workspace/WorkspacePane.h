#pragma once

#include "workspace/WorkspaceCheckpoint.h"
#include "workspace/WorkspaceCommandRunner.h"

#include <QWidget>

#include <map>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTreeWidget;

namespace sbw {

class OutputView;
class WorkspaceActions;
class WorkspaceManager;

/// The selected workspace: a heading with its state badge, settings and (a fork's) origin, its
/// lifecycle buttons (the shared WorkspaceActions) and Settings… (its environment variables,
/// WorkspaceSettingsDialog), a command line whose commands run in the workspace (working
/// folder /root) under a timeout and an output cap, with their output below it and the limit
/// that ended one named in its status line, and the checkpoint timeline with Revert and Delete.
///
/// The command line belongs to its workspace: each workspace keeps the text typed for it, its
/// last command's output and its own runner, so selecting another workspace shows that one's
/// and a command runs on in its workspace while another is shown. After a revert, the output
/// of earlier commands stays, under a note that it is from before the revert.
class WorkspacePane : public QWidget
{
    Q_OBJECT

public:
    WorkspacePane(WorkspaceManager* manager, WorkspaceActions* actions, QWidget* parent = nullptr);

    /// Shows workspace `name` (empty: none).
    void setWorkspace(const QString& name);
    QString workspace() const { return m_name; }

    QLineEdit* commandLine() const { return m_command; }
    /// The output of the shown workspace's commands.
    OutputView* output() const;
    QTreeWidget* checkpointList() const { return m_checkpoints; }
    /// The timeout (0: none) and output cap per stream (MiB, 0: none) of the next commands.
    void setCommandLimits(std::chrono::seconds timeout, qint64 outputCapMiB);
    /// Whether a command of the shown workspace runs.
    bool isExecRunning() const;
    /// Logs the commands typed here as a person's exec rows in `log`.
    void setCommandLog(std::shared_ptr<CommandLog> log);

public Q_SLOTS:
    /// Runs the command line's text in the workspace.
    void runCommand();
    void cancelCommand();
    /// Re-reads the checkpoint timeline (off the GUI thread).
    void reloadCheckpoints();
    /// Opens the Workspace Settings dialog and saves what it gives back.
    void editSettings();

Q_SIGNALS:
    /// A command ended (for tests and the status bar).
    void commandFinished(const sbw::WorkspaceCommandOutcome& outcome);

private:
    /// The command line of one workspace while it is not shown, its output and its runner.
    struct CommandState
    {
        QString text;
        OutputView* output = nullptr;
        WorkspaceCommandRunner* exec = nullptr;
    };

    /// The state of workspace `name`, made on first use.
    CommandState& commandState(const QString& name);
    /// Drops the state of workspaces that are gone (unless a command of theirs still runs).
    void forgetRemovedWorkspaces();
    void markReverted(const QString& name, const QString& checkpoint);
    void updateHeading();
    void updateEnabled();
    /// The listing of workspace `name`, or the error in place of its rows.
    void showCheckpoints(const QString& name, const Expected<QList<CheckpointInfo>>& checkpoints);
    /// The command's status under its output (WorkspaceCommandRunner::ended).
    void onCommandEnded(const QString& name, const WorkspaceCommandOutcome& outcome);
    /// Its row is done (file changes listed): the command line takes the next one.
    void onCommandFinished(const WorkspaceCommandOutcome& outcome);
    QString selectedCheckpoint() const;

    WorkspaceManager* m_manager;
    WorkspaceActions* m_actions;
    QString m_name;
    QLabel* m_heading;
    QLabel* m_details;
    QLineEdit* m_command;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QSpinBox* m_timeoutBox;
    QSpinBox* m_outputCapBox;
    QPushButton* m_settingsButton;
    QStackedWidget* m_outputs; ///< one OutputView per workspace in m_commands
    QTreeWidget* m_checkpoints;
    QPushButton* m_revertButton;
    QPushButton* m_deleteCheckpointButton;
    std::map<QString, CommandState> m_commands; ///< by workspace name; "" while none is shown
    std::shared_ptr<CommandLog> m_log;
};

} // namespace sbw
