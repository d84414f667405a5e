#include "RunController.h"

namespace sbw {

RunController::RunController(HypervisorConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection)
{
    qRegisterMetaType<sbw::RunResult>();
    qRegisterMetaType<sbw::RunPhase>();
    qRegisterMetaType<sbw::OutputStream>();
    m_flushTimer.setInterval(50);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunController::flushOutput);
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
    m_flushTimer.start();
    m_worker = std::thread([this, options] {
        RunCallbacks callbacks;
        callbacks.onPhase = [this](RunPhase phase) {
            QMetaObject::invokeMethod(this, [this, phase] { Q_EMIT phaseChanged(phase); },
                                      Qt::QueuedConnection);
        };
        callbacks.onStdout = [this](QByteArrayView bytes) { append(OutputStream::Stdout, bytes); };
        callbacks.onStderr = [this](QByteArrayView bytes) { append(OutputStream::Stderr, bytes); };
        callbacks.onResult = [this](const RunResult& result) {
            QMetaObject::invokeMethod(
                this,
                [this, result] {
                    flushOutput();
                    Q_EMIT resultReady(result);
                },
                Qt::QueuedConnection);
        };
        const RunResult result = runEphemeral(*m_connection, options, callbacks, &m_cancel);
        QMetaObject::invokeMethod(
            this,
            [this, result] {
                flushOutput();
                m_flushTimer.stop();
                m_running = false;
                joinWorker();
                Q_EMIT finished(result);
            },
            Qt::QueuedConnection);
    });
    return true;
}

void RunController::cancel() { m_cancel = true; }

void RunController::append(OutputStream stream, QByteArrayView bytes)
{
    std::lock_guard lock(m_pendingMutex);
    if (!m_pending.isEmpty() && m_pending.last().first == stream)
        m_pending.last().second.append(bytes);
    else
        m_pending.append({stream, bytes.toByteArray()});
}

void RunController::flushOutput()
{
    QList<std::pair<OutputStream, QByteArray>> pending;
    {
        std::lock_guard lock(m_pendingMutex);
        pending.swap(m_pending);
    }
    for (const auto& [stream, bytes] : pending)
        Q_EMIT outputReceived(stream, bytes);
}

} // namespace sbw
