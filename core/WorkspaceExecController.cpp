#include "WorkspaceExecController.h"

#include "LoggedAction.h"
#include "Workspace.h"

#include <QElapsedTimer>

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

WorkspaceExecController::WorkspaceExecController(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<sbw::WorkspaceExecOutcome>();
    connect(&m_output, &OutputBatcher::outputReceived, this,
            &WorkspaceExecController::outputReceived);
}

WorkspaceExecController::~WorkspaceExecController()
{
    m_cancel = true;
    joinWorker();
}

void WorkspaceExecController::setCommandLog(std::shared_ptr<CommandLog> log, Actor actor)
{
    m_log = std::move(log);
    m_actor = std::move(actor);
}

void WorkspaceExecController::joinWorker()
{
    if (m_worker.joinable())
        m_worker.join();
}

bool WorkspaceExecController::start(std::shared_ptr<Workspace> workspace, const QString& command,
                                    const QString& workdir, std::chrono::seconds timeout)
{
    if (m_running || !workspace)
        return false;
    joinWorker();
    m_running = true;
    m_cancel = false;
    m_output.start();
    ActionStart logged;
    logged.sandbox = workspace->name();
    logged.actor = m_actor;
    logged.kind = ActionKind::Exec;
    logged.command = command;
    logged.workdir = workdir;
    m_worker = std::thread([this, workspace = std::move(workspace), command, workdir, timeout,
                            log = m_log, logged] {
        QElapsedTimer clock;
        clock.start();
        LoggedAction action(log, logged);
        ExecRequest request;
        request.command = workspaceShellCommand(command, workdir);
        request.timeout = timeout;
        request.cancel = &m_cancel;
        request.onStdout = [this, &action](QByteArrayView bytes) {
            m_output.append(OutputStream::Stdout, bytes);
            action.output(OutputStream::Stdout, bytes);
        };
        request.onStderr = [this, &action](QByteArrayView bytes) {
            m_output.append(OutputStream::Stderr, bytes);
            action.output(OutputStream::Stderr, bytes);
        };
        WorkspaceExecOutcome outcome;
        outcome.command = command;
        auto status = workspace->exec(request, std::chrono::steady_clock::now() + kReadyWait);
        action.finish(LoggedAction::endOf(status));
        if (status)
            outcome.status = status.value();
        else
            outcome.error = status.error().message;
        outcome.wallMs = clock.elapsed();
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
