#include "workspace/WorkspacePane.h"

#include "base/Async.h"
#include "base/SignalText.h"
#include "base/VisibleText.h"
#include "widgets/OutputView.h"
#include "widgets/RunStatusText.h"
#include "widgets/StateBadge.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspaceSettingsDialog.h"

#include <QDateTime>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSet>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sbw {
namespace {

const QString kWorkdir = QStringLiteral("/root");

QString statusText(const WorkspaceCommandOutcome& outcome)
{
    if (!outcome.error.isEmpty())
        return QObject::tr("could not run: %1").arg(outcome.error);
    const ExecStatus& status = outcome.status;
    QString text;
    if (status.cancelled)
        text = QObject::tr("cancelled");
    else if (status.timedOut)
        text = QObject::tr("timed out and killed");
    else if (status.signal)
        text = QObject::tr("killed by signal %1").arg(signalText(*status.signal));
    else if (status.exitStatus)
        text = QObject::tr("exit status %1").arg(*status.exitStatus);
    else
        text = QObject::tr("ended without an exit status");
    // The limit that ended the command comes first: "the memory limit of 512 MiB was hit: …".
    if (!outcome.limitNote.isEmpty() && !status.cancelled)
        text = outcome.limitNote + QStringLiteral(" · ") + text;
    return text + QStringLiteral(" · ") + durationText(outcome.wallMs);
}

} // namespace

WorkspacePane::WorkspacePane(WorkspaceManager* manager, WorkspaceActions* actions, QWidget* parent)
    : QWidget(parent), m_manager(manager), m_actions(actions), m_heading(new QLabel(this)),
      m_details(new QLabel(this)), m_command(new QLineEdit(this)),
      m_runButton(new QPushButton(tr("Run"), this)),
      m_cancelButton(new QPushButton(tr("Cancel"), this)), m_timeoutBox(new QSpinBox(this)),
      m_outputCapBox(new QSpinBox(this)), m_settingsButton(new QPushButton(tr("Settings…"), this)),
      m_outputs(new QStackedWidget(this)), m_checkpoints(new QTreeWidget(this)),
      m_revertButton(new QPushButton(tr("Revert…"), this)),
      m_deleteCheckpointButton(new QPushButton(tr("Delete"), this))
{
    QFont headingFont = m_heading->font();
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.3);
    headingFont.setBold(true);
    m_heading->setFont(headingFont);
    m_heading->setTextFormat(Qt::PlainText);
    m_details->setTextFormat(Qt::PlainText);

    auto* controls = new QHBoxLayout;
    for (QAction* action : m_actions->lifecycleActions()) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        controls->addWidget(button);
    }
    controls->addStretch();
    controls->addWidget(m_settingsButton);

    m_timeoutBox->setObjectName(QStringLiteral("commandTimeoutBox"));
    m_timeoutBox->setRange(0, 24 * 3600);
    m_timeoutBox->setSuffix(tr(" s"));
    m_timeoutBox->setSpecialValueText(tr("No timeout"));
    m_timeoutBox->setToolTip(tr("Wall-clock limit of each command; it is killed when it expires"));
    m_outputCapBox->setObjectName(QStringLiteral("commandOutputCapBox"));
    m_outputCapBox->setRange(0, 1024 * 1024);
    m_outputCapBox->setSuffix(tr(" MiB"));
    m_outputCapBox->setSpecialValueText(tr("No output cap"));
    m_outputCapBox->setValue(int(RunOptions::kDefaultOutputCapBytes >> 20));
    m_outputCapBox->setToolTip(tr("Output let through per stream; past it the rest is dropped "
                                  "and the command killed"));
    m_settingsButton->setObjectName(QStringLiteral("workspaceSettingsButton"));
    m_revertButton->setObjectName(QStringLiteral("revertButton"));
    m_settingsButton->setToolTip(tr("Environment variables and secrets of this workspace"));
    m_command->setPlaceholderText(tr("Command to run in the workspace (in %1), e.g. ls -la").arg(kWorkdir));
    m_command->setClearButtonEnabled(true);
    auto* commandRow = new QHBoxLayout;
    commandRow->addWidget(new QLabel(QStringLiteral("$"), this));
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(m_timeoutBox);
    commandRow->addWidget(m_outputCapBox);
    commandRow->addWidget(m_runButton);
    commandRow->addWidget(m_cancelButton);
    auto* execBox = new QWidget(this);
    auto* execLayout = new QVBoxLayout(execBox);
    execLayout->setContentsMargins(0, 0, 0, 0);
    execLayout->addLayout(commandRow);
    execLayout->addWidget(m_outputs, 1);

    m_checkpoints->setHeaderLabels({tr("Checkpoint"), tr("Taken (UTC)"), tr("Guest"), tr("Note")});
    m_checkpoints->setRootIsDecorated(false);
    m_checkpoints->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_checkpoints->header()->setSectionResizeMode(3, QHeaderView::Stretch);
    auto* newCheckpoint = new QToolButton(this);
    newCheckpoint->setDefaultAction(m_actions->checkpointAction());
    auto* checkpointButtons = new QHBoxLayout;
    checkpointButtons->addWidget(newCheckpoint);
    checkpointButtons->addWidget(m_revertButton);
    checkpointButtons->addWidget(m_deleteCheckpointButton);
    checkpointButtons->addStretch();
    auto* checkpointBox = new QGroupBox(tr("Checkpoints"), this);
    auto* checkpointLayout = new QVBoxLayout(checkpointBox);
    checkpointLayout->addWidget(m_checkpoints, 1);
    checkpointLayout->addLayout(checkpointButtons);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("workspaceSplitter")); // its sizes are kept (MainWindow)
    splitter->addWidget(execBox);
    splitter->addWidget(checkpointBox);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    layout->addWidget(m_details);
    layout->addLayout(controls);
    layout->addWidget(splitter, 1);

    connect(m_command, &QLineEdit::returnPressed, this, &WorkspacePane::runCommand);
    connect(m_runButton, &QPushButton::clicked, this, &WorkspacePane::runCommand);
    connect(m_cancelButton, &QPushButton::clicked, this, &WorkspacePane::cancelCommand);
    connect(m_settingsButton, &QPushButton::clicked, this, &WorkspacePane::editSettings);
    connect(m_revertButton, &QPushButton::clicked, this, [this] {
        if (const QString name = selectedCheckpoint(); !name.isEmpty())
            m_actions->revertTo(name);
    });
    connect(m_deleteCheckpointButton, &QPushButton::clicked, this, [this] {
        if (const QString name = selectedCheckpoint(); !name.isEmpty())
            m_actions->deleteCheckpoint(name);
    });
    connect(m_checkpoints, &QTreeWidget::itemSelectionChanged, this, &WorkspacePane::updateEnabled);
    connect(m_manager, &WorkspaceManager::stateChanged, this, [this](const QString& name) {
        if (name == m_name) {
            updateHeading();
            updateEnabled();
        }
    });
    connect(m_actions, &WorkspaceActions::checkpointsChanged, this, [this](const QString& name) {
        if (name == m_name)
            reloadCheckpoints();
    });
    connect(m_actions, &WorkspaceActions::operationFinished, this,
            [this](const OperationReport& report) {
                if (report.kind == ActionKind::Revert && report.result)
                    markReverted(report.workspace, report.detail);
            });
    connect(m_manager, &WorkspaceManager::workspacesChanged, this,
            &WorkspacePane::forgetRemovedWorkspaces);
    m_outputs->setCurrentWidget(commandState({}).output);
    setWorkspace({});
}

WorkspacePane::CommandState& WorkspacePane::commandState(const QString& name)
{
    auto [it, made] = m_commands.try_emplace(name);
    CommandState& state = it->second;
    if (!made)
        return state;
    state.output = new OutputView(m_outputs);
    state.output->setPlaceholderText(tr("Output of the command appears here."));
    m_outputs->addWidget(state.output);
    state.exec = new WorkspaceCommandRunner(this);
    if (m_log)
        state.exec->setCommandLog(m_log, Actor{});
    connect(state.exec, &WorkspaceCommandRunner::outputReceived, state.output,
            &OutputView::appendOutput);
    connect(state.exec, &WorkspaceCommandRunner::ended, this,
            [this, name](const WorkspaceCommandOutcome& outcome) { onCommandEnded(name, outcome); });
    connect(state.exec, &WorkspaceCommandRunner::finished, this, &WorkspacePane::onCommandFinished);
    return state;
}

void WorkspacePane::forgetRemovedWorkspaces()
{
    QSet<QString> listed;
    for (const auto& entry : m_manager->workspaces())
        listed.insert(entry.name);
    for (auto it = m_commands.begin(); it != m_commands.end();) {
        const bool keep = it->first.isEmpty() || it->first == m_name ||
                          listed.contains(it->first) || it->second.exec->isRunning();
        if (keep) {
            ++it;
            continue;
        }
        delete it->second.output;
        delete it->second.exec;
        it = m_commands.erase(it);
    }
}

void WorkspacePane::markReverted(const QString& name, const QString& checkpoint)
{
    const auto it = m_commands.find(name);
    if (it == m_commands.end() || it->second.output->document()->isEmpty())
        return;
    it->second.output->appendNote(
        tr("── reverted to checkpoint '%1' at %2 UTC: the output above is from before "
           "the revert ──")
            .arg(makeVisible(checkpoint),
                 QDateTime::currentDateTimeUtc().toString(QStringLiteral("HH:mm:ss"))));
}

OutputView* WorkspacePane::output() const
{
    return static_cast<OutputView*>(m_outputs->currentWidget());
}

bool WorkspacePane::isExecRunning() const
{
    const auto it = m_commands.find(m_name);
    return it != m_commands.end() && it->second.exec->isRunning();
}

void WorkspacePane::setCommandLog(std::shared_ptr<CommandLog> log)
{
    m_log = std::move(log);
    for (auto& [name, state] : m_commands)
        state.exec->setCommandLog(m_log, Actor{});
}

void WorkspacePane::setWorkspace(const QString& name)
{
    if (name == m_name && !name.isEmpty())
        return;
    commandState(m_name).text = m_command->text();
    m_name = name;
    CommandState& shown = commandState(name);
    m_command->setText(shown.text);
    m_outputs->setCurrentWidget(shown.output);
    m_checkpoints->clear();
    updateHeading();
    updateEnabled();
    reloadCheckpoints();
}

void WorkspacePane::updateHeading()
{
    if (m_name.isEmpty()) {
        m_heading->setText(tr("No workspace selected"));
        m_details->clear();
        return;
    }
    const WorkspaceState state = m_manager->state(m_name);
    m_heading->setText(tr("%1 — %2").arg(m_name, workspaceStateName(state)));
    QString details;
    for (const auto& entry : m_manager->workspaces()) {
        if (entry.name != m_name)
            continue;
        const WorkspaceSettings& s = entry.record.settings;
        details = tr("image %1 · %2 vCPU · %3 MiB memory · %4 GiB disk · network %5 · created %6 UTC")
                      .arg(s.recipe)
                      .arg(s.vcpus)
                      .arg(s.memoryMiB)
                      .arg(s.diskGiB)
                      .arg(workspaceNetworkName(s.network),
                           entry.record.created.toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        if (!entry.record.origin.isEmpty())
            details += QStringLiteral(" · ") + entry.record.origin.describe();
    }
    m_details->setText(details);
    QPalette palette = m_heading->palette();
    palette.setColor(QPalette::WindowText, stateColor(state).darker(120));
    m_heading->setPalette(palette);
}

void WorkspacePane::updateEnabled()
{
    const WorkspaceState state = m_manager->state(m_name);
    const bool running = isExecRunning();
    const bool execAllowed = !m_name.isEmpty() && canExec(state);
    // Read-only rather than disabled while a command runs: a disabled line would hand the focus
    // to the timeout box, where the next digits typed would change the timeout.
    m_command->setEnabled(!m_name.isEmpty());
    m_command->setReadOnly(running);
    m_runButton->setEnabled(execAllowed && !running);
    m_cancelButton->setEnabled(running);
    m_settingsButton->setEnabled(!m_name.isEmpty());
    const bool haveSelection = !selectedCheckpoint().isEmpty();
    m_revertButton->setEnabled(haveSelection && canRevert(state));
    m_deleteCheckpointButton->setEnabled(haveSelection && !m_name.isEmpty());
}

void WorkspacePane::runCommand()
{
    const QString command = m_command->text().trimmed();
    if (m_name.isEmpty() || command.isEmpty() || isExecRunning() ||
        !canExec(m_manager->state(m_name)))
        return;
    CommandState& state = commandState(m_name);
    state.output->clearOutput();
    state.output->appendNote(QStringLiteral("$ ") + makeVisible(command));
    if (state.exec->start(m_manager->workspace(m_name), command, kWorkdir,
                          std::chrono::seconds(m_timeoutBox->value()),
                          qint64(m_outputCapBox->value()) << 20))
        updateEnabled();
}

void WorkspacePane::setCommandLimits(std::chrono::seconds timeout, qint64 outputCapMiB)
{
    m_timeoutBox->setValue(int(timeout.count()));
    m_outputCapBox->setValue(int(outputCapMiB));
}

void WorkspacePane::editSettings()
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(m_name);
    if (!workspace)
        return;
    auto environment = workspace->environment(); // a small local file
    if (!environment) {
        QMessageBox::warning(this, tr("Workspace Settings"), environment.error().message);
        return;
    }
    WorkspaceSettingsDialog dialog(m_name, environment.value(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (auto saved = workspace->setEnvironment(dialog.environment()); !saved)
        QMessageBox::warning(this, tr("Workspace Settings"), saved.error().message);
}

void WorkspacePane::cancelCommand()
{
    if (const auto it = m_commands.find(m_name); it != m_commands.end())
        it->second.exec->cancel();
}

void WorkspacePane::onCommandEnded(const QString& name, const WorkspaceCommandOutcome& outcome)
{
    // Shown before the scan of the command's file changes ends: the person sees the end at once.
    OutputView* output = commandState(name).output;
    output->endOutput();
    output->appendNote(statusText(outcome));
}

void WorkspacePane::onCommandFinished(const WorkspaceCommandOutcome& outcome)
{
    updateEnabled();
    Q_EMIT commandFinished(outcome);
}

void WorkspacePane::reloadCheckpoints()
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(m_name);
    if (!workspace)
        return;
    const QString name = m_name;
    runThen(
        this, [workspace] { return workspace->checkpoints(); },
        [this, name](const Expected<QList<CheckpointInfo>>& checkpoints) {
            showCheckpoints(name, checkpoints);
        });
}

void WorkspacePane::showCheckpoints(const QString& name,
                                    const Expected<QList<CheckpointInfo>>& checkpoints)
{
    if (name != m_name)
        return;
    m_checkpoints->clear();
    if (!checkpoints) {
        auto* item = new QTreeWidgetItem(m_checkpoints,
                                         {tr("(cannot list: %1)").arg(checkpoints.error().message)});
        item->setFlags(Qt::NoItemFlags);
        updateEnabled();
        return;
    }
    for (const CheckpointInfo& checkpoint : checkpoints.value()) {
        auto* item = new QTreeWidgetItem(
            m_checkpoints,
            {makeVisible(checkpoint.name),
             checkpoint.created.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
             checkpoint.guestState, makeVisible(checkpoint.note.simplified())});
        item->setData(0, Qt::UserRole, checkpoint.name);
        item->setToolTip(3, makeVisible(checkpoint.note));
        if (checkpoint.current) {
            QFont font = item->font(0);
            font.setBold(true);
            for (int column = 0; column < 4; ++column)
                item->setFont(column, font);
            item->setText(0, item->text(0) + tr("  (current)"));
        }
    }
    updateEnabled();
}

QString WorkspacePane::selectedCheckpoint() const
{
    const auto selected = m_checkpoints->selectedItems();
    return selected.isEmpty() ? QString() : selected.first()->data(0, Qt::UserRole).toString();
}

} // namespace sbw
