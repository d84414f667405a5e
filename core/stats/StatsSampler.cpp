#include "stats/StatsSampler.h"

#include "base/Logging.h"
#include "hypervisor/HypervisorConnection.h"
#include "stats/StatsCollector.h"

namespace sbw {

StatsSampler::StatsSampler(HypervisorConnection* connection, std::chrono::milliseconds interval,
                           QObject* parent)
    : QObject(parent), m_connection(connection), m_interval(interval)
{
    qRegisterMetaType<sbw::StatsTick>();
}

StatsSampler::~StatsSampler()
{
    stop();
}

void StatsSampler::start()
{
    if (m_thread.joinable())
        return;
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
}

void StatsSampler::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void StatsSampler::run()
{
    StatsCollector collector;
    QString lastError;
    auto next = std::chrono::steady_clock::now();
    for (;;) {
        Expected<StatsTick> tick = makeError(QString());
        if (auto opened = m_connection->ensureOpen(); !opened)
            tick = opened.error();
        else if (virConnectPtr conn = m_connection->handle())
            tick = collector.collect(conn);
        else
            tick = makeError(QStringLiteral("the libvirt connection is closed"));

        if (tick) {
            lastError.clear();
            m_history.append(tick.value());
            QMetaObject::invokeMethod(
                this, [this, sample = tick.value()] { Q_EMIT sampled(sample); },
                Qt::QueuedConnection);
        } else if (tick.error().message != lastError) {
            lastError = tick.error().message;
            qCWarning(lcVirt) << "statistics:" << lastError;
            QMetaObject::invokeMethod(
                this, [this, message = lastError] { Q_EMIT samplingFailed(message); },
                Qt::QueuedConnection);
        }

        // Fixed rate: a slow tick shortens the next wait; after a stall, skip missed ticks.
        next += m_interval;
        const auto now = std::chrono::steady_clock::now();
        if (next < now)
            next = now;
        std::unique_lock lock(m_mutex);
        if (m_wake.wait_until(lock, next, [this] { return m_stopping; }))
            return;
    }
}

} // namespace sbw
