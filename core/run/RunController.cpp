#include "run/RunController.h"

namespace sbw {

RunController::RunController(HypervisorConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection)
{
    qRegisterMetaType<sbw::RunResult>();
    qRegisterMetaType<sbw::RunPhase>();
    connect(&m_output, &OutputBatcher::outputReceived, this, &RunController::outputReceived);
}

RunController::~RunController()
{
    m_cancel = true;
    joinWorker();
}

void RunController::joinWorker()
{
    if (m_worker.joinable())
        m_worker.join();
}

bool RunController::start(const RunOptions& options)
{
    if (m_running)
        return false;
    joinWorker();
    m_running = true;
    m_cancel = false;
    m_output.start();
    RunOptions run = options;
    if (m_pool)
        run.pool = m_pool.get();
    m_worker = std::thread([this, options = std::move(run), connection = m_connection, pool = m_pool] {
        RunCallbacks callbacks;
        callbacks.onPhase = [this](RunPhase phase) {
            QMetaObject::invokeMethod(this, [this, phase] { Q_EMIT phaseChanged(phase); },
                                      Qt::QueuedConnection);
        };
        callbacks.onQueued = [this](int ahead, int max) {
            QMetaObject::invokeMethod(this, [this, ahead, max] { Q_EMIT queued(ahead, max); }, Qt::QueuedConnection);
        };
        callbacks.onStaging = [this](qint64 sent, qint64 total) {
            QMetaObject::invokeMethod(this, [this, sent, total] { Q_EMIT staging(sent, total); }, Qt::QueuedConnection);
        };
        callbacks.onStdout = [this](QByteArrayView bytes) { m_output.append(OutputStream::Stdout, bytes); };
        callbacks.onStderr = [this](QByteArrayView bytes) { m_output.append(OutputStream::Stderr, bytes); };
        callbacks.onResult = [this](const RunResult& result) {
            QMetaObject::invokeMethod(
                this,
                [this, result] {
                    m_output.flush();
                    Q_EMIT resultReady(result);
                },
                Qt::QueuedConnection);
        };
        callbacks.onSessionReady = [this](std::shared_ptr<GuestSession> session) {
            QMetaObject::invokeMethod(
                this, [this, session] { Q_EMIT sessionReady(session); }, Qt::QueuedConnection);
        };
        const RunResult result = runEphemeral(*connection, options, callbacks, &m_cancel);
        QMetaObject::invokeMethod(
            this,
            [this, result] {
                m_output.flush();
                m_output.stop();
                m_running = false;
                joinWorker();
                Q_EMIT finished(result);
            },
            Qt::QueuedConnection);
    });
    return true;
}

void RunController::cancel() { m_cancel = true; }

void RunController::setHost(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool)
{
    m_connection = connection;
    m_pool = std::move(pool);
}

} // namespace sbw
