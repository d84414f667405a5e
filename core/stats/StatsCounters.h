#pragma once

#include "stats/StatsSample.h"

#include <QtGlobal>
#include <optional>

typedef struct _virTypedParameter* virTypedParameterPtr;

namespace sbw {

/// Raw cumulative counters of one domain from one virConnectGetAllDomainStats record.
struct DomainCounters
{
    int state = 0;                              ///< virDomainState ("state.state")
    int reason = 0;                             ///< its reason ("state.reason")
    std::optional<quint64> cpuTimeNs;           ///< "cpu.time": guest and QEMU threads, ns
    std::optional<quint64> balloonAvailableKiB; ///< "balloon.available"
    std::optional<quint64> balloonUnusedKiB;    ///< "balloon.unused"
    std::optional<quint64> balloonRssKiB;       ///< "balloon.rss": the QEMU process's resident set
    std::optional<quint64> diskReadBytes;       ///< sum of "block.N.rd.bytes"
    std::optional<quint64> diskWriteBytes;      ///< sum of "block.N.wr.bytes"
    std::optional<quint64> netRxBytes;          ///< sum of "net.N.rx.bytes"
    std::optional<quint64> netTxBytes;          ///< sum of "net.N.tx.bytes"
};

/// Reads the counters above from a stats record's typed parameters (any order; unknown fields
/// are ignored, missing ones stay empty).
DomainCounters parseDomainCounters(const virTypedParameterPtr params, int count);

/// Host CPU and memory counters (virNodeGetCPUStats / virNodeGetMemoryStats, all CPUs/cells).
struct HostCounters
{
    quint64 cpuBusyNs = 0;      ///< kernel + user
    quint64 cpuTotalNs = 0;     ///< kernel + user + idle + iowait
    quint64 memoryTotalKiB = 0; ///< 0 when the driver does not report memory
    quint64 memoryFreeKiB = 0;  ///< free + buffers + cached
    std::optional<quint64> mergedPages; ///< KSM's pages_sharing; empty where not reported
};

/// The sandbox sample for `current`, taken `elapsedNs` after `previous` (nullptr for the first
/// sample). CPU % = Δcpu.time / (elapsed × vcpus) × 100, clamped to 0–100, empty unless the
/// domain ran in both samples; byte rates = Δbytes / elapsed s. A counter smaller than before
/// (domain restarted) gives an empty rate instead of a negative one. Memory used is
/// (available − unused) / 1024; resident is rss / 1024. Fills vcpus and the figures; timeMs, uuid, name and state
/// are the caller's.
SandboxSample sandboxSample(const DomainCounters* previous, const DomainCounters& current,
                            qint64 elapsedNs, int vcpus);

/// Host CPU % busy between two readings (0–100; empty when no time passed or counters went
/// back) and memory figures of `current` (empty when its total is 0; merged: pages × 4 KiB).
HostSample hostSample(const HostCounters* previous, const HostCounters& current);

} // namespace sbw
