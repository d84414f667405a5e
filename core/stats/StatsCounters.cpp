#include "stats/StatsCounters.h"

#include <QByteArrayView>
#include <algorithm>
#include <libvirt/libvirt.h>

namespace sbw {
namespace {

constexpr double kNsPerSec = 1e9;

quint64 unsignedValue(const virTypedParameter& param)
{
    switch (param.type) {
    case VIR_TYPED_PARAM_INT:
        return quint64(std::max(param.value.i, 0));
    case VIR_TYPED_PARAM_UINT:
        return param.value.ui;
    case VIR_TYPED_PARAM_LLONG:
        return quint64(std::max<long long>(param.value.l, 0));
    case VIR_TYPED_PARAM_ULLONG:
        return param.value.ul;
    default:
        return 0;
    }
}

void add(std::optional<quint64>& sum, quint64 value)
{
    sum = sum.value_or(0) + value;
}

/// Matches "<prefix>.<N>.<suffix>" (N any index), e.g. "block.0.rd.bytes".
bool isIndexed(QByteArrayView field, QByteArrayView prefix, QByteArrayView suffix)
{
    if (!field.startsWith(prefix) || !field.endsWith(suffix) ||
        field.size() <= prefix.size() + suffix.size())
        return false;
    const QByteArrayView index =
        field.sliced(prefix.size(), field.size() - prefix.size() - suffix.size());
    return std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<double> rate(const std::optional<quint64>& before, const std::optional<quint64>& now,
                           qint64 elapsedNs)
{
    if (!before || !now || *now < *before || elapsedNs <= 0)
        return std::nullopt;
    return double(*now - *before) * kNsPerSec / double(elapsedNs);
}

} // namespace

DomainCounters parseDomainCounters(const virTypedParameterPtr params, int count)
{
    DomainCounters counters;
    for (int i = 0; i < count; ++i) {
        const virTypedParameter& param = params[i];
        const QByteArrayView field(param.field);
        if (field == "state.state")
            counters.state = int(unsignedValue(param));
        else if (field == "state.reason")
            counters.reason = int(unsignedValue(param));
        else if (field == "cpu.time")
            counters.cpuTimeNs = unsignedValue(param);
        else if (field == "balloon.available")
            counters.balloonAvailableKiB = unsignedValue(param);
        else if (field == "balloon.unused")
            counters.balloonUnusedKiB = unsignedValue(param);
        else if (field == "balloon.rss")
            counters.balloonRssKiB = unsignedValue(param);
        else if (isIndexed(field, "block.", ".rd.bytes"))
            add(counters.diskReadBytes, unsignedValue(param));
        else if (isIndexed(field, "block.", ".wr.bytes"))
            add(counters.diskWriteBytes, unsignedValue(param));
        else if (isIndexed(field, "net.", ".rx.bytes"))
            add(counters.netRxBytes, unsignedValue(param));
        else if (isIndexed(field, "net.", ".tx.bytes"))
            add(counters.netTxBytes, unsignedValue(param));
    }
    return counters;
}

SandboxSample sandboxSample(const DomainCounters* previous, const DomainCounters& current,
                            qint64 elapsedNs, int vcpus)
{
    SandboxSample sample;
    sample.vcpus = std::max(vcpus, 1);
    const DomainCounters none;
    const DomainCounters& before = previous ? *previous : none;
    const bool ranThroughout =
        previous && before.state == VIR_DOMAIN_RUNNING && current.state == VIR_DOMAIN_RUNNING;
    if (ranThroughout) {
        if (const auto cpuNsPerSec = rate(before.cpuTimeNs, current.cpuTimeNs, elapsedNs))
            sample.cpuPercent =
                std::clamp(*cpuNsPerSec / kNsPerSec / sample.vcpus * 100.0, 0.0, 100.0);
    }
    if (current.balloonAvailableKiB && current.balloonUnusedKiB) {
        const quint64 available = *current.balloonAvailableKiB;
        const quint64 unused = std::min(*current.balloonUnusedKiB, available);
        sample.memoryUsedMiB = double(available - unused) / 1024.0;
        sample.memoryTotalMiB = double(available) / 1024.0;
    }
    if (current.balloonRssKiB)
        sample.residentMiB = double(*current.balloonRssKiB) / 1024.0;
    sample.diskReadBytesPerSec = rate(before.diskReadBytes, current.diskReadBytes, elapsedNs);
    sample.diskWriteBytesPerSec = rate(before.diskWriteBytes, current.diskWriteBytes, elapsedNs);
    sample.netRxBytesPerSec = rate(before.netRxBytes, current.netRxBytes, elapsedNs);
    sample.netTxBytesPerSec = rate(before.netTxBytes, current.netTxBytes, elapsedNs);
    return sample;
}

HostSample hostSample(const HostCounters* previous, const HostCounters& current)
{
    HostSample sample;
    if (previous && current.cpuTotalNs > previous->cpuTotalNs &&
        current.cpuBusyNs >= previous->cpuBusyNs) {
        const double busy = double(current.cpuBusyNs - previous->cpuBusyNs);
        const double total = double(current.cpuTotalNs - previous->cpuTotalNs);
        sample.cpuPercent = std::clamp(busy / total * 100.0, 0.0, 100.0);
    }
    // libvirt reports merged pages as a count; x86-64 hosts, the only ones sandboxes run on,
    // merge pages of 4 KiB.
    if (current.mergedPages)
        sample.mergedMiB = double(*current.mergedPages) * 4.0 / 1024.0;
    if (current.memoryTotalKiB == 0)
        return sample;
    sample.memoryTotalMiB = double(current.memoryTotalKiB) / 1024.0;
    sample.memoryUsedMiB =
        double(current.memoryTotalKiB - std::min(current.memoryFreeKiB, current.memoryTotalKiB)) /
        1024.0;
    return sample;
}

} // namespace sbw
