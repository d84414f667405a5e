#include "stats/StatsHistory.h"

namespace sbw {

void StatsHistory::append(const StatsTick& tick)
{
    std::lock_guard lock(m_mutex);
    m_host.append(tick.host);
    for (const SandboxSample& sample : tick.sandboxes) {
        auto it = m_sandboxes.find(sample.uuid);
        if (it == m_sandboxes.end()) {
            it = m_sandboxes.insert(sample.uuid, SampleRing<SandboxSample>(m_capacity));
            m_order.append(sample.uuid);
        }
        it->append(sample);
        m_lastSeen[sample.uuid] = m_ticks;
    }
    for (auto it = m_lastSeen.begin(); it != m_lastSeen.end();) {
        if (m_ticks - it.value() < m_capacity) {
            ++it;
            continue;
        }
        m_sandboxes.remove(it.key());
        m_order.removeAll(it.key());
        it = m_lastSeen.erase(it);
    }
    ++m_ticks;
}

QList<SandboxSample> StatsHistory::sandbox(const QString& uuid) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_sandboxes.constFind(uuid);
    return it == m_sandboxes.cend() ? QList<SandboxSample>() : it->toList();
}

QList<HostSample> StatsHistory::host() const
{
    std::lock_guard lock(m_mutex);
    return m_host.toList();
}

QStringList StatsHistory::sandboxes() const
{
    std::lock_guard lock(m_mutex);
    return m_order;
}

} // namespace sbw
