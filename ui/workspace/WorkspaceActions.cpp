#include "workspace/WorkspaceActions.h"

#include "approval/Policy.h"
#include "base/Async.h"
#include "hypervisor/HypervisorConnection.h"
#include "image/ImageBuildDialog.h"
#include "log/LoggedAction.h"
#include "workspace/CheckpointDialog.h"
#include "workspace/ForkDialog.h"
#include "workspace/NewWorkspaceDialog.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceManager.h"

#include <QAction>
#include <QIcon>
#include <QMessageBox>
#include <QPointer>

namespace sbw {

WorkspaceActions::WorkspaceActions(HypervisorConnection* connection, WorkspaceManager* manager,
                                   QWidget* dialogParent)
    : QObject(dialogParent), m_connection(connection), m_manager(manager),
      m_dialogParent(dialogParent)
{
    m_new = makeAction(tr("&New Workspace…"), QStringLiteral("list-add"),
                       QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                       tr("Create a persistent workspace (Ctrl+Shift+N)"));
    m_start = makeAction(tr("&Start"), QStringLiteral("media-playback-start"), {},
                         tr("Boot the workspace"));
    m_stop =
        makeAction(tr("S&top"), QStringLiteral("system-shutdown"), {},
                   tr("Shut the guest down cleanly (forced off after 30 s); its disk is kept"));
    m_pause = makeAction(tr("&Pause"), QStringLiteral("media-playback-pause"),
                         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                         tr("Freeze the guest in memory (Ctrl+Shift+P)"));
    m_resume = makeAction(tr("&Resume"), QStringLiteral("media-playback-start"),
                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                          tr("Let a paused guest run again and correct its clock (Ctrl+Shift+R)"));
    m_hibernate = makeAction(tr("&Hibernate"), QStringLiteral("document-save"),
                             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H),
                             tr("Save the guest's memory to disk and stop it (Ctrl+Shift+H)"));
    m_wake = makeAction(tr("&Wake"), QStringLiteral("document-revert"), {},
                        tr("Restore a hibernated guest where it was"));
    m_checkpoint = makeAction(tr("&Checkpoint…"), QStringLiteral("camera-photo"),
                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K),
                              tr("Save disk and memory as a named checkpoint (Ctrl+Shift+K)"));
    m_fork = makeAction(tr("&Fork…"), QStringLiteral("edit-copy"), {},
                        tr("Make a new workspace from this one: its disk and checkpoints, and its "
                           "memory while it runs"));
    m_checkpointBeforeApproved =
        makeAction(tr("Checkpoint &Before Approved Actions"), {}, {},
                   tr("Take a checkpoint before each command or file write of an agent that a person "
                      "approves, so the log is a timeline to revert to and fork from"));
    m_checkpointBeforeApproved->setCheckable(true);
    m_newTerminal = makeAction(tr("New &Terminal"), QStringLiteral("utilities-terminal"),
                               QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T),
                               tr("Open another login shell in the workspace (Ctrl+Shift+T)"));
    m_delete = makeAction(tr("&Delete Workspace…"), QStringLiteral("edit-delete"), {},
                          tr("Delete the workspace with its disk and checkpoints"));

    connect(m_new, &QAction::triggered, this, &WorkspaceActions::createWorkspace);
    connect(m_start, &QAction::triggered, this, [this] { startWorkspace(m_current); });
    connect(m_stop, &QAction::triggered, this, &WorkspaceActions::stopWorkspace);
    connect(m_pause, &QAction::triggered, this, [this] {
        run(tr("Pause"), ActionKind::Pause, {}, [](Workspace& w) { return w.pause(); });
    });
    connect(m_resume, &QAction::triggered, this, [this] {
        run(tr("Resume"), ActionKind::Resume, {}, [](Workspace& w) { return w.resume(); });
    });
    connect(m_hibernate, &QAction::triggered, this, [this] {
        run(tr("Hibernate"), ActionKind::Hibernate, {}, [](Workspace& w) { return w.hibernate(); });
    });
    connect(m_wake, &QAction::triggered, this, [this] {
        run(tr("Wake"), ActionKind::Wake, {}, [](Workspace& w) { return w.wake(); });
    });
    connect(m_checkpoint, &QAction::triggered, this, &WorkspaceActions::takeCheckpoint);
    connect(m_fork, &QAction::triggered, this, &WorkspaceActions::askFork);
    connect(m_checkpointBeforeApproved, &QAction::triggered, this, &WorkspaceActions::setCheckpointBeforeApproved);
    connect(m_delete, &QAction::triggered, this, &WorkspaceActions::deleteWorkspace);
    connect(m_newTerminal, &QAction::triggered, this,
            [this] { Q_EMIT newTerminalRequested(m_current); });
    connect(m_manager, &WorkspaceManager::stateChanged, this, &WorkspaceActions::updateEnabled);
    connect(m_manager, &WorkspaceManager::workspacesChanged, this,
            &WorkspaceActions::updateEnabled);
    connect(m_manager, &WorkspaceManager::connectedChanged, this, &WorkspaceActions::updateEnabled);
    updateEnabled();
}

QAction* WorkspaceActions::makeAction(const QString& text, const QString& icon,
                                      const QKeySequence& shortcut, const QString& tip)
{
    auto* action = new QAction(QIcon::fromTheme(icon), text, this);
    action->setShortcut(shortcut);
    action->setToolTip(tip);
    action->setStatusTip(tip);
    return action;
}

QList<QAction*> WorkspaceActions::lifecycleActions() const
{
    return {m_start, m_stop, m_pause, m_resume, m_hibernate, m_wake, m_checkpoint};
}

void WorkspaceActions::setCurrent(const QString& name)
{
    m_current = name;
    // Read once per selection (a small local file; another process may have changed it).
    const auto checkpointing = name.isEmpty() ? Expected<bool>(false) : loadCheckpointBeforeApproved(name);
    m_checkpointBeforeApproved->setChecked(checkpointing && checkpointing.value());
    updateEnabled();
}

void WorkspaceActions::setCheckpointBeforeApproved(bool on)
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(m_current);
    if (!workspace)
        return;
    // Off the GUI thread: the workspace's lifecycle lock may be held by a start or a fork.
    runThen(this, [workspace, on] { return workspace->setCheckpointBeforeApproved(on); },
            [this, name = m_current, on](const Expected<void>& set) {
        if (set)
            return;
        if (name == m_current)
            m_checkpointBeforeApproved->setChecked(!on);
        QMessageBox::warning(m_dialogParent, tr("Checkpoint Before Approved Actions"), set.error().message);
    });
}

void WorkspaceActions::updateEnabled()
{
    const bool connected = m_manager->isConnected();
    m_new->setEnabled(connected);
    const bool usable = connected && !m_current.isEmpty() && !m_busy.contains(m_current);
    const WorkspaceState state = m_manager->state(m_current);
    m_start->setEnabled(usable && canStart(state));
    m_stop->setEnabled(usable && canStop(state));
    m_pause->setEnabled(usable && canPause(state));
    m_resume->setEnabled(usable && canResume(state));
    m_hibernate->setEnabled(usable && canHibernate(state));
    m_wake->setEnabled(usable && canWake(state));
    m_checkpoint->setEnabled(usable && canCheckpoint(state));
    m_fork->setEnabled(usable && canFork(state));
    m_checkpointBeforeApproved->setEnabled(usable);
    m_newTerminal->setEnabled(usable && canExec(state));
    m_delete->setEnabled(usable && canDelete(state));
}

void WorkspaceActions::setCommandLog(std::shared_ptr<CommandLog> log)
{
    m_log = std::move(log);
}

void WorkspaceActions::run(const QString& what, ActionKind kind, const QString& detail,
                           std::function<Expected<void>(Workspace&)> operation,
                           bool changesCheckpoints)
{
    runOn(m_current, what, kind, detail, std::move(operation), changesCheckpoints);
}

void WorkspaceActions::runOn(const QString& name, const QString& what, ActionKind kind,
                             const QString& detail,
                             std::function<Expected<void>(Workspace&)> operation,
                             bool changesCheckpoints)
{
    ActionStart logged;
    logged.sandbox = name;
    logged.kind = kind;
    logged.command = detail;
    runTask(
        name, what,
        [operation = std::move(operation), log = m_log, logged](Workspace& workspace) {
            LoggedAction action(log, logged);
            auto outcome = operation(workspace);
            action.finish(LoggedAction::endOf(outcome));
            return OperationReport{{}, {}, outcome, {}, false, logged.kind, logged.command, {}};
        },
        changesCheckpoints);
}

void WorkspaceActions::startWorkspace(const QString& name)
{
    runOn(name, tr("Start"), ActionKind::Start, {}, [](Workspace& w) { return w.start(); });
}

void WorkspaceActions::stopWorkspace()
{
    ActionStart logged;
    logged.sandbox = m_current;
    logged.kind = ActionKind::Stop;
    runTask(
        m_current, tr("Stop"),
        [log = m_log, logged](Workspace& workspace) {
            LoggedAction action(log, logged);
            const auto stopped = workspace.stop();
            finishStopAction(action, stopped);
            if (!stopped)
                return OperationReport{{}, {}, stopped.error(), {}, false, ActionKind::Stop, {}, {}};
            return OperationReport{
                {}, {}, {}, stopped->summary(), stopped->forced, ActionKind::Stop, {}, {}};
        },
        false);
}

void WorkspaceActions::runTask(const QString& name, const QString& what,
                               std::function<OperationReport(Workspace&)> task,
                               bool changesCheckpoints)
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(name);
    if (!workspace || m_busy.contains(name))
        return;
    m_busy.insert(name);
    updateEnabled();
    runThen(
        this, [workspace, task = std::move(task)] { return task(*workspace); },
        [this, name, what, changesCheckpoints, workspace](OperationReport report) {
            m_busy.remove(name);
            m_manager->refresh();
            updateEnabled();
            if (changesCheckpoints)
                Q_EMIT checkpointsChanged(name);
            report.workspace = name;
            report.what = what;
            Q_EMIT operationFinished(report);
            if (report.result && !report.made.isEmpty()) // a fork, on its source's host
                Q_EMIT workspaceCreated(m_manager->nameOn(&workspace->connection(), report.made));
        });
}

void WorkspaceActions::createWorkspace()
{
    NewWorkspaceDialog dialog(m_dialogParent);
    QStringList taken;
    for (const WorkspaceManager::Entry& entry : m_manager->workspaces())
        taken.append(entry.record.name); // on any host: agents name workspaces without their host
    dialog.setTakenNames(taken);
    QStringList hosts;
    for (const HypervisorConnection* host : m_hosts ? m_hosts() : QList<HypervisorConnection*>{})
        hosts << host->uri();
    dialog.setHosts(hosts);
    if (dialog.exec() != QDialog::Accepted)
        return;
    // A template that is not built yet is built first (with its progress in a dialog).
    ImageBuildDialog::ensureBuilt(m_dialogParent, dialog.settings().recipe,
                                  [this, name = dialog.name(), settings = dialog.settings(),
                                   start = dialog.startNow(), host = dialog.host()] { create(name, settings, start, host); });
}

void WorkspaceActions::create(const QString& given, const WorkspaceSettings& settings, bool start,
                              const QString& host)
{
    HypervisorConnection* connection = m_connection;
    for (HypervisorConnection* offered : m_hosts ? m_hosts() : QList<HypervisorConnection*>{})
        if (offered->uri() == host)
            connection = offered;
    const QString name = m_manager->nameOn(connection, given); // the workspace as listed
    m_busy.insert(name);
    ActionStart logged;
    logged.sandbox = given;
    logged.kind = ActionKind::Create;
    logged.command = tr("%1 vCPU(s), %2 MiB, %3 GiB disk, CPU share %4 %, network %5")
                         .arg(settings.vcpus)
                         .arg(settings.memoryMiB)
                         .arg(settings.diskGiB)
                         .arg(settings.cpuSharePercent)
                         .arg(workspaceNetworkName(settings.network));
    auto work = [connection, given, settings, log = m_log, logged]() -> Expected<void> {
        LoggedAction action(log, logged);
        auto created = Workspace::create(*connection, given, settings);
        if (!created) {
            action.finish(LoggedAction::endOf(Expected<void>(created.error())));
            return created.error();
        }
        action.finish(ActionEnd{});
        return {};
    };
    runThen(this, std::move(work), [this, name, start](const Expected<void>& created) {
        m_busy.remove(name);
        m_manager->refresh();
        updateEnabled();
        Q_EMIT operationFinished(
            OperationReport{name, tr("Create"), created, {}, false, ActionKind::Create, {}, {}});
        if (!created)
            return;
        Q_EMIT workspaceCreated(name);
        if (start)
            startWorkspace(name);
    });
}

void WorkspaceActions::takeCheckpoint()
{
    // Window-modal and not exec(): the window keeps painting, and the workspace cannot be
    // switched while the dialog is open.
    auto* dialog = new CheckpointDialog(m_current, m_dialogParent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, workspace = m_current] {
        if (workspace != m_current)
            return;
        const QString name = dialog->name();
        const QString note = dialog->note();
        run(
            tr("Checkpoint"), ActionKind::Checkpoint,
            note.isEmpty() ? name : name + QStringLiteral(": ") + note,
            [name, note](Workspace& w) -> Expected<void> {
                auto taken = w.checkpoint(name, note);
                if (!taken)
                    return taken.error();
                return {};
            },
            true);
    });
    dialog->open();
}

void WorkspaceActions::askFork()
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(m_current);
    if (!workspace)
        return;
    QStringList taken;
    for (const WorkspaceManager::Entry& entry : m_manager->workspaces())
        taken.append(entry.record.name); // on any host: agents name workspaces without their host
    const WorkspaceState state = m_manager->state(m_current);
    const bool up = state == WorkspaceState::Running || state == WorkspaceState::Paused;
    // Window-modal and not exec(), as Checkpoint…: the window keeps painting meanwhile.
    auto* dialog = new ForkDialog(m_current, up, taken, m_dialogParent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    runThen(
        dialog, [workspace] { return workspace->checkpoints(); },
        [dialog](const Expected<QList<CheckpointInfo>>& checkpoints) { dialog->setCheckpoints(checkpoints); });
    connect(dialog, &QDialog::accepted, this, [this, dialog, source = m_current] {
        if (source == m_current)
            fork(dialog->name(), dialog->options());
    });
    dialog->open();
}

void WorkspaceActions::fork(const QString& name, const ForkOptions& options)
{
    if (!m_manager->workspace(m_current) || m_busy.contains(m_current))
        return;
    ActionStart logged;
    logged.sandbox = m_current;
    logged.kind = ActionKind::Fork;
    // As `sbw ws fork` writes it, so the log reads the same whoever forked.
    logged.command = options.checkpoint.isEmpty()
                         ? name
                         : QStringLiteral("%1 from checkpoint %2").arg(name, options.checkpoint);
    Q_EMIT forkStarted(m_current, name);
    runTask(
        m_current, tr("Fork"),
        [log = m_log, logged, name, options](Workspace& source) {
            LoggedAction action(log, logged);
            auto forked = source.fork(name, options);
            action.finish(forked ? ActionEnd{} : LoggedAction::endOf(Expected<void>(forked.error())));
            OperationReport report{{}, {}, {}, {}, false, ActionKind::Fork, logged.command, name};
            if (!forked) {
                report.result = forked.error();
                return report;
            }
            const QString state = workspaceStateName(forked.value()->state());
            // The rules live in the workbench's policy file, not in libvirt: Workspace::fork()
            // cannot copy them.
            if (auto copied = Policy::copyWorkspace(Policy::defaultPath(), source.name(), name); !copied) {
                report.notice = tr("forked into '%1' (%2), but the fork has no copy of its policy rules: %3")
                                    .arg(name, state, copied.error().message);
                report.warning = true;
                return report;
            }
            report.notice = tr("forked into '%1' (%2)").arg(name, state);
            return report;
        },
        true);
}

void WorkspaceActions::revertTo(const QString& checkpoint)
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(m_current);
    if (!workspace || m_busy.contains(m_current))
        return;
    // revertImpact() reads snapshot metadata: a short local libvirt call.
    auto impact = workspace->revertImpact(checkpoint);
    if (!impact) {
        QMessageBox::warning(m_dialogParent, tr("Revert"), impact.error().message);
        return;
    }
    const auto answer =
        QMessageBox::question(m_dialogParent, tr("Revert to Checkpoint"),
                              tr("Revert workspace '%1' to checkpoint '%2'?\n\n%3")
                                  .arg(m_current, checkpoint, impact->describe()),
                              QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes)
        return;
    run(
        tr("Revert"), ActionKind::Revert, checkpoint,
        [checkpoint](Workspace& w) { return w.revert(checkpoint); }, true);
}

void WorkspaceActions::deleteCheckpoint(const QString& checkpoint)
{
    if (m_current.isEmpty() || m_busy.contains(m_current))
        return;
    const auto answer = QMessageBox::question(
        m_dialogParent, tr("Delete Checkpoint"),
        tr("Delete checkpoint '%1' of workspace '%2'? Other checkpoints and the workspace's "
           "current state are kept.")
            .arg(checkpoint, m_current),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes)
        return;
    run(
        tr("Delete checkpoint"), ActionKind::CheckpointDelete, checkpoint,
        [checkpoint](Workspace& w) { return w.deleteCheckpoint(checkpoint); }, true);
}

void WorkspaceActions::deleteWorkspace()
{
    if (m_current.isEmpty())
        return;
    const auto answer = QMessageBox::warning(
        m_dialogParent, tr("Delete Workspace"),
        tr("Delete workspace '%1'?\n\nIts virtual machine is destroyed if it runs, and its "
           "disk, memory image, checkpoints and record are deleted. This cannot be undone.")
            .arg(m_current),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes)
        return;
    run(tr("Delete"), ActionKind::Remove, {}, [](Workspace& w) { return w.remove(); });
}

} // namespace sbw
