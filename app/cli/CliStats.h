#pragma once

#include "base/TerminationSignals.h"
#include "stats/StatsSample.h"

#include <QObject>

namespace sbw {

class HypervisorConnection;
class StatsSampler;

/// `sbw stats`: samples the host and the workbench's sandboxes once a second (StatsSampler) and
/// prints them, as a table or (json) one JSON object per tick on one line. Rates need two
/// samples, so the first tick is not printed; without `follow` the second tick is printed and
/// the event loop quits with 0, with `follow` every tick is printed until SIGINT, SIGTERM or
/// SIGHUP (exit status 0). A sampling failure prints "sbw: error: <message>" and quits with 125.
class CliStats : public QObject
{
    Q_OBJECT

public:
    CliStats(HypervisorConnection* connection, bool json, bool follow, QObject* parent = nullptr);
    void start();

    /// The table of one tick: a header, one row per sandbox, then the host line. Rates in
    /// KiB/s with one decimal, "-" where a figure is not known (first tick, paused, no NIC).
    static QByteArray table(const StatsTick& tick);
    /// One JSON object (compact, no newline); keys carry their units, unknown figures are null:
    /// {"time": ISO 8601 UTC, "host": {cpu_percent, memory_used_mib, memory_total_mib},
    ///  "sandboxes": [{name, uuid, state, vcpus, cpu_percent, memory_used_mib,
    ///  memory_total_mib, disk_read_bytes_per_sec, disk_write_bytes_per_sec,
    ///  net_rx_bytes_per_sec, net_tx_bytes_per_sec}]}
    static QByteArray json(const StatsTick& tick);

private:
    void onSampled(const StatsTick& tick);

    StatsSampler* m_sampler;
    TerminationSignals m_termination{3};
    bool m_json;
    bool m_follow;
    int m_ticks = 0;
};

/// Entry point of `sbw stats [--json] [--follow] [--connect URI]`: `arguments` as from
/// QCoreApplication::arguments() without the word "stats". Returns the exit status (2 for
/// usage errors).
int statsCommand(QStringList arguments);

} // namespace sbw
