#pragma once

#include "stats/StatsHistory.h"
#include "stats/StatsSample.h"

#include <QObject>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace sbw {

class HypervisorConnection;

/// Samples the host and every domain the workbench owns (StatsCollector: one
/// virConnectGetAllDomainStats call per tick) on its own thread, so no caller ever waits for
/// libvirt. Each tick goes into a history ring (kHistoryTicks ticks, 15 minutes at the default
/// 1 s interval) and is emitted as sampled() on the thread that owns this object.
///
/// A paused, hibernated or stopped sandbox is sampled like any other: it is marked so and gets
/// no CPU figure. Failures (daemon gone, connection lost) are reported by samplingFailed() once
/// per distinct message, not once per tick, and sampling carries on.
class StatsSampler : public QObject
{
    Q_OBJECT

public:
    static constexpr qsizetype kHistoryTicks = 900;

    explicit StatsSampler(HypervisorConnection* connection,
                          std::chrono::milliseconds interval = std::chrono::seconds(1),
                          QObject* parent = nullptr);
    /// Stops the thread; waits for a tick in progress (one libvirt round trip).
    ~StatsSampler() override;

    /// Starts ticking (first tick at once); opens the connection on the sampling thread if it
    /// is not open. Idempotent.
    void start();
    /// Stops ticking; returns once the thread has ended. The history stays.
    void stop();

    std::chrono::milliseconds interval() const { return m_interval; }

    /// Thread-safe. Samples of one sandbox (by UUID), oldest first, at most kHistoryTicks.
    QList<SandboxSample> history(const QString& uuid) const { return m_history.sandbox(uuid); }
    /// Thread-safe. Host samples, oldest first.
    QList<HostSample> hostHistory() const { return m_history.host(); }
    /// Thread-safe. UUIDs with a history, in the order they were first seen.
    QStringList sandboxes() const { return m_history.sandboxes(); }

Q_SIGNALS:
    /// One tick: the host and every workbench sandbox, sorted by name. Rates need two ticks,
    /// so the first tick has none.
    void sampled(const sbw::StatsTick& tick);
    /// Sampling failed with `message` (a sentence); not repeated until a tick succeeds or the
    /// message changes.
    void samplingFailed(const QString& message);

private:
    void run();

    HypervisorConnection* const m_connection;
    const std::chrono::milliseconds m_interval;
    StatsHistory m_history{kHistoryTicks};
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
};

} // namespace sbw
