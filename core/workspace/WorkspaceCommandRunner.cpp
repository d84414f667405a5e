#include "workspace/WorkspaceCommandRunner.h"

#include "workspace/Workspace.h"

namespace sbw {
namespace {

constexpr std::chrono::seconds kReadyWait{120};

QByteArray shellQuoted(const QString& text)
{
    QByteArray quoted = text.toUtf8();
    quoted.replace('\'', "'\\''");
    return '\'' + quoted + '\'';
}

} // namespace

QByteArray workspaceShellCommand(const QString& command, const QString& workdir)
{
    return "cd " + shellQuoted(workdir) + " && " + command.toUtf8();
}

WorkspaceCommandRunner::WorkspaceCommandRunner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<sbw::WorkspaceCommandOutcome>();
    connect(&m_output, &OutputBatcher::outputReceived, this,
            &WorkspaceCommandRunner::outputReceived);
}

WorkspaceCommandRunner::~WorkspaceCommandRunner()
{
    m_cancel = true;
    joinWorker();
}

void WorkspaceCommandRunner::setCommandLog(std::shared_ptr<CommandLog> log, Actor actor)
{
    m_log = std::move(log);
    m_actor = std::move(actor);
}

void WorkspaceCommandRunner::joinWorker()
{
    if (m_worker.joinable())
        m_worker.join();
}

bool WorkspaceCommandRunner::start(std::shared_ptr<Workspace> workspace, const QString& command,
                                    const QString& workdir, std::chrono::seconds timeout,
                                    qint64 outputCapBytes)
{
    if (m_running || !workspace)
        return false;
    joinWorker();
    m_running = true;
    m_cancel = false;
    m_output.start();
    WorkspaceCommandOptions options;
    options.command = command;
    options.shellCommand = workspaceShellCommand(command, workdir);
    options.workdir = workdir;
    options.timeout = timeout;
    options.outputCapBytes = outputCapBytes;
    options.cancel = &m_cancel;
    options.log = m_log;
    options.actor = m_actor;
    options.onOutput = [this](OutputStream stream, QByteArrayView bytes) {
        m_output.append(stream, bytes);
    };
    options.onEnded = [this, command](const WorkspaceCommandResult& result) {
        WorkspaceCommandOutcome outcome;
        static_cast<WorkspaceCommandResult&>(outcome) = result;
        outcome.command = command;
        QMetaObject::invokeMethod(
            this,
            [this, outcome] {
                m_output.flush();
                Q_EMIT ended(outcome);
            },
            Qt::QueuedConnection);
    };
    m_worker = std::thread([this, workspace = std::move(workspace), options]() mutable {
        options.readyDeadline = std::chrono::steady_clock::now() + kReadyWait;
        WorkspaceCommandOutcome outcome;
        static_cast<WorkspaceCommandResult&>(outcome) = runWorkspaceCommand(*workspace, options);
        outcome.command = options.command;
        QMetaObject::invokeMethod(
            this,
            [this, outcome] {
                m_output.flush();
                m_output.stop();
                m_running = false;
                joinWorker();
                Q_EMIT finished(outcome);
            },
            Qt::QueuedConnection);
    });
    return true;
}

} // namespace sbw
