#pragma once

#include "stats/StatsSample.h"

#include <QHash>
#include <QList>
#include <mutex>

namespace sbw {

/// Fixed-capacity ring of samples, oldest first; appending to a full ring drops the oldest.
template <typename Sample> class SampleRing
{
public:
    explicit SampleRing(qsizetype capacity = 1) : m_capacity(std::max<qsizetype>(capacity, 1)) {}

    void append(const Sample& sample)
    {
        if (m_items.size() < m_capacity) {
            m_items.append(sample);
            return;
        }
        m_items[m_next] = sample;
        m_next = (m_next + 1) % m_capacity;
    }

    /// Oldest first.
    QList<Sample> toList() const
    {
        QList<Sample> out;
        out.reserve(m_items.size());
        for (qsizetype i = 0; i < m_items.size(); ++i)
            out.append(m_items.at((m_next + i) % m_items.size()));
        return out;
    }

    qsizetype size() const { return m_items.size(); }
    qsizetype capacity() const { return m_capacity; }

private:
    qsizetype m_capacity;
    qsizetype m_next = 0; ///< index of the oldest item once the ring is full
    QList<Sample> m_items;
};

/// The last `capacity` ticks of the host and of every sandbox seen, thread-safe (one writer,
/// any number of readers). A sandbox that is gone (not in any tick for `capacity` ticks) is
/// dropped, so a day of ephemeral runs does not pile up histories.
class StatsHistory
{
public:
    explicit StatsHistory(qsizetype capacity) : m_capacity(capacity), m_host(capacity) {}

    void append(const StatsTick& tick);

    /// Samples of the sandbox with `uuid`, oldest first; empty for unknown ones.
    QList<SandboxSample> sandbox(const QString& uuid) const;
    QList<HostSample> host() const;
    /// UUIDs with a history, in the order they were first seen.
    QStringList sandboxes() const;
    qsizetype capacity() const { return m_capacity; }

private:
    const qsizetype m_capacity;
    mutable std::mutex m_mutex;
    SampleRing<HostSample> m_host;
    QHash<QString, SampleRing<SandboxSample>> m_sandboxes;
    QHash<QString, qint64> m_lastSeen; ///< tick number a sandbox was last in
    qint64 m_ticks = 0;
    QStringList m_order;
};

} // namespace sbw
