#include "preview/ActionPreview.h"

#include "base/Logging.h"
#include "changes/ChangeWatch.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommandRunner.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSet>

namespace sbw {
namespace {

using Clock = std::chrono::steady_clock;

/// Limits of the preview's command: an approver waits for it.
constexpr std::chrono::seconds kPreviewTimeout(120);
constexpr std::chrono::seconds kReadyWait(60);

/// The shell command that does what `request` asks, and the folder it runs in.
Expected<std::pair<QByteArray, QString>> shellCommandFor(const ActionRequest& request)
{
    if (request.kind == ActionKind::Exec) {
        WorkspaceEnvironment env;
        for (const QString& variable : request.environment)
            env.set(variable.section(QLatin1Char('='), 0, 0), variable.section(QLatin1Char('='), 1), false);
        const QString workdir = request.workdir.isEmpty() ? QStringLiteral("/root") : request.workdir;
        return std::pair{env.exportLines() + workspaceShellCommand(request.command, workdir), workdir};
    }
    if (request.kind == ActionKind::FileWrite) {
        // The file's folder is the working folder, so its changes are watched too.
        const QString folder = QFileInfo(request.path).path();
        QByteArray path = request.path.toUtf8();
        path.replace('\'', "'\\''");
        return std::pair{"cat > '" + path + "'", folder};
    }
    return makeError(QStringLiteral("only a command or a file write can be previewed"));
}

void keep(QByteArray& into, QByteArrayView bytes)
{
    const qint64 room = ActionPreview::kMaxOutputBytes - into.size();
    if (room > 0)
        into.append(bytes.first(std::min<qint64>(room, bytes.size())));
}

} // namespace

QString PreviewReport::summary() const
{
    QStringList parts{command.summary()};
    if (command.fileChanges.tracked)
        parts << command.fileChanges.summary();
    if (!newProcesses.isEmpty())
        parts << (newProcesses.size() == 1 ? QStringLiteral("1 new process")
                                           : QStringLiteral("%1 new processes").arg(newProcesses.size()));
    return parts.join(QStringLiteral(" · "));
}

QString previewForkName()
{
    return QStringLiteral("preview-%1").arg(QRandomGenerator::global()->bounded(1u << 24), 6, 16, QLatin1Char('0'));
}

Expected<std::unique_ptr<ActionPreview>> ActionPreview::run(std::shared_ptr<Workspace> workspace,
                                                            const ActionRequest& request,
                                                            std::shared_ptr<CommandLog> log,
                                                            const std::atomic_bool* cancel)
{
    if (auto command = shellCommandFor(request); !command)
        return command.error();
    std::unique_ptr<ActionPreview> preview(new ActionPreview);
    QElapsedTimer clock;
    clock.start();
    ForkOptions options;
    options.offline = true; // nobody has approved the action: it reaches nothing outside
    auto fork = workspace->fork(previewForkName(), options);
    if (!fork)
        return fork.error();
    preview->m_source = std::move(workspace);
    preview->m_fork = std::move(fork.value());
    preview->m_report.fork = preview->m_fork->name();
    preview->m_report.forkMs = clock.restart();
    if (preview->m_fork->state() == WorkspaceState::Paused)
        if (auto resumed = preview->m_fork->resume(); !resumed)
            return resumed.error();
    if (auto done = preview->execute(request, std::move(log), cancel); !done)
        return done.error();
    preview->m_report.runMs = clock.elapsed();
    return preview;
}

Expected<void> ActionPreview::execute(const ActionRequest& request, std::shared_ptr<CommandLog> log,
                                      const std::atomic_bool* cancel)
{
    auto command = shellCommandFor(request);
    if (auto refreshed = refreshShadowCopy(command->second); !refreshed)
        return refreshed.error();
    auto before = processes();
    if (!before)
        return before.error();
    WorkspaceCommandOptions options;
    options.command = request.kind == ActionKind::Exec ? commandWithEnvironment(request)
                                                       : QStringLiteral("write %1").arg(request.path);
    options.shellCommand = command->first;
    options.workdir = command->second;
    options.stdinData = request.content;
    options.timeout = kPreviewTimeout;
    options.cancel = cancel;
    options.readyDeadline = Clock::now() + kReadyWait;
    options.log = std::move(log);
    options.actor = {Actor::Kind::Workbench, QStringLiteral("preview of %1's asked action").arg(request.sandbox)};
    options.onOutput = [this](OutputStream stream, QByteArrayView bytes) {
        keep(stream == OutputStream::Stdout ? m_report.stdoutBytes : m_report.stderrBytes, bytes);
    };
    m_report.command = runWorkspaceCommand(*m_fork, options);
    auto after = processes();
    if (!after)
        return {}; // the report stands without the process list
    // New: not there before, and not the child of a process that was (a loop's `sleep 1`
    // comes and goes whatever the action does); what the action left running in the background
    // has lost its parent to init.
    QSet<qint64> earlier;
    for (const Process& process : before.value())
        earlier.insert(process.pid);
    for (const Process& process : after.value())
        if (!earlier.contains(process.pid) && !process.isTheWorkbenchs() &&
            (process.ppid == 1 || !earlier.contains(process.ppid)))
            m_report.newProcesses << QStringLiteral("%1 %2").arg(process.pid).arg(process.args);
    return {};
}

Expected<void> ActionPreview::refreshShadowCopy(const QString& workdir)
{
    ExecRequest request;
    request.command = ChangeWatch::forCommand(workdir).refreshNowCommand();
    request.timeout = std::chrono::seconds(60);
    auto status = m_fork->exec(request, Clock::now() + kReadyWait);
    if (!status)
        return status.error();
    if (status->exitStatus != 0) // the diffs of files it missed say why they are absent
        qCWarning(lcVirt) << "preview" << m_report.fork << ": the copy of small files for diffs failed";
    return {};
}

Expected<QList<ActionPreview::Process>> ActionPreview::processes()
{
    ExecRequest request;
    request.command = "exec ps -eo pid=,ppid=,args=";
    request.timeout = std::chrono::seconds(30);
    QByteArray out;
    request.onStdout = [&](QByteArrayView bytes) { out.append(bytes); };
    auto status = m_fork->exec(request, Clock::now() + kReadyWait);
    if (!status)
        return status.error();
    QList<Process> list;
    for (const QByteArray& raw : out.split('\n')) {
        const QStringList fields = QString::fromUtf8(raw).simplified().split(QLatin1Char(' '));
        if (fields.size() >= 3)
            list << Process{fields[0].toLongLong(), fields[1].toLongLong(), fields.mid(2).join(QLatin1Char(' '))};
    }
    return list;
}

bool ActionPreview::Process::isTheWorkbenchs() const
{
    // Kernel threads ("[kworker/0:1]") come and go on their own; sshd, the exec wrappers of the
    // guest session, this listing and the change scans' background work are the workbench's.
    return args.startsWith(QLatin1Char('[')) || args.startsWith(QLatin1String("sshd")) ||
           args.startsWith(QLatin1String("bash -c echo $$ >/run/sbw-exec-")) ||
           args == QLatin1String("ps -eo pid=,ppid=,args=") ||
           args.contains(QString::fromLatin1(ChangeWatch::kStateFolder));
}

Expected<PreviewedOutcome> ActionPreview::adopt()
{
    if (!m_fork)
        return makeError(QStringLiteral("the preview's fork is gone"));
    if (auto adopted = m_source->adoptFork(*m_fork); !adopted)
        return adopted.error();
    PreviewedOutcome outcome;
    outcome.fork = m_report.fork;
    outcome.exitStatus = m_report.command.status.exitStatus;
    outcome.signal = m_report.command.status.signal;
    outcome.stdoutBytes = m_report.stdoutBytes;
    outcome.stderrBytes = m_report.stderrBytes;
    outcome.wallMs = m_report.command.wallMs;
    outcome.fileChanges = m_report.command.fileChanges;
    if (auto removed = discard(); !removed)
        qCWarning(lcVirt) << "cannot delete a preview's fork:" << removed.error().message;
    return outcome;
}

Expected<void> ActionPreview::discard()
{
    if (!m_fork)
        return {};
    auto removed = m_fork->remove();
    m_fork.reset();
    return removed;
}

ActionPreview::~ActionPreview()
{
    if (auto removed = discard(); !removed)
        qCWarning(lcVirt) << "cannot delete a preview's fork:" << removed.error().message;
}

} // namespace sbw
