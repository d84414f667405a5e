#include "stats/StatsCollector.h"

#include "hypervisor/DomainSpec.h"
#include "hypervisor/VirtError.h"

#include <QDateTime>
#include <algorithm>
#include <chrono>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <vector>

namespace sbw {
namespace {

constexpr unsigned kStatsGroups = VIR_DOMAIN_STATS_STATE | VIR_DOMAIN_STATS_CPU_TOTAL |
                                  VIR_DOMAIN_STATS_BALLOON | VIR_DOMAIN_STATS_BLOCK |
                                  VIR_DOMAIN_STATS_INTERFACE;

qint64 monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

QString uuidOf(virDomainPtr domain)
{
    char uuid[VIR_UUID_STRING_BUFLEN] = {};
    virDomainGetUUIDString(domain, uuid);
    return QString::fromLatin1(uuid);
}

bool carriesOurMetadata(virDomainPtr domain)
{
    char* metadata = virDomainGetMetadata(domain, VIR_DOMAIN_METADATA_ELEMENT, kMetadataNamespace,
                                          VIR_DOMAIN_AFFECT_CURRENT);
    free(metadata);
    return metadata != nullptr;
}

int vcpusOf(virDomainPtr domain)
{
    virDomainInfo info = {};
    return virDomainGetInfo(domain, &info) == 0 ? std::max<int>(info.nrVirtCpu, 1) : 1;
}

/// KSM's shm_pages_sharing (virNodeGetMemoryParameters); empty where the host has no KSM.
std::optional<quint64> readMergedPages(virConnectPtr conn)
{
    int count = 0;
    if (virNodeGetMemoryParameters(conn, nullptr, &count, 0) < 0 || count <= 0) {
        virResetLastError();
        return std::nullopt;
    }
    std::vector<virTypedParameter> params(static_cast<size_t>(count));
    if (virNodeGetMemoryParameters(conn, params.data(), &count, 0) < 0) {
        virResetLastError();
        return std::nullopt;
    }
    unsigned long long pages = 0;
    const bool found = virTypedParamsGetULLong(params.data(), count,
                                               VIR_NODE_MEMORY_SHARED_PAGES_SHARING, &pages) == 1;
    virTypedParamsClear(params.data(), count);
    return found ? std::optional<quint64>(pages) : std::nullopt;
}

std::optional<HostCounters> readHost(virConnectPtr conn)
{
    HostCounters host;
    int count = 0;
    if (virNodeGetCPUStats(conn, VIR_NODE_CPU_STATS_ALL_CPUS, nullptr, &count, 0) < 0 || count <= 0)
        return std::nullopt;
    std::vector<virNodeCPUStats> cpu(static_cast<size_t>(count));
    if (virNodeGetCPUStats(conn, VIR_NODE_CPU_STATS_ALL_CPUS, cpu.data(), &count, 0) < 0)
        return std::nullopt;
    for (int i = 0; i < count; ++i) {
        const QByteArrayView field(cpu[size_t(i)].field);
        const quint64 value = cpu[size_t(i)].value;
        if (field == VIR_NODE_CPU_STATS_KERNEL || field == VIR_NODE_CPU_STATS_USER)
            host.cpuBusyNs += value;
        if (field == VIR_NODE_CPU_STATS_KERNEL || field == VIR_NODE_CPU_STATS_USER ||
            field == VIR_NODE_CPU_STATS_IDLE || field == VIR_NODE_CPU_STATS_IOWAIT)
            host.cpuTotalNs += value;
    }

    count = 0;
    if (virNodeGetMemoryStats(conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, nullptr, &count, 0) < 0 ||
        count <= 0)
        return host;
    std::vector<virNodeMemoryStats> memory(static_cast<size_t>(count));
    if (virNodeGetMemoryStats(conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, memory.data(), &count, 0) < 0)
        return host;
    for (int i = 0; i < count; ++i) {
        const QByteArrayView field(memory[size_t(i)].field);
        const quint64 value = memory[size_t(i)].value;
        if (field == VIR_NODE_MEMORY_STATS_TOTAL)
            host.memoryTotalKiB = value;
        else if (field == VIR_NODE_MEMORY_STATS_FREE || field == VIR_NODE_MEMORY_STATS_BUFFERS ||
                 field == VIR_NODE_MEMORY_STATS_CACHED)
            host.memoryFreeKiB += value;
    }
    host.mergedPages = readMergedPages(conn);
    return host;
}

} // namespace

Expected<StatsTick> StatsCollector::collect(virConnectPtr conn)
{
    virDomainStatsRecordPtr* records = nullptr;
    const int count = virConnectGetAllDomainStats(conn, kStatsGroups, &records,
                                                  VIR_CONNECT_GET_ALL_DOMAINS_STATS_NOWAIT);
    if (count < 0)
        return virtError(QStringLiteral("cannot read domain statistics"));
    const qint64 nowNs = monotonicNs();

    StatsTick tick;
    tick.timeMs = QDateTime::currentMSecsSinceEpoch();
    QHash<QString, DomainInfo> seen;
    QHash<QString, Previous> previous;
    for (int i = 0; i < count; ++i) {
        virDomainPtr domain = records[i]->dom;
        const QString uuid = uuidOf(domain);
        auto known = m_domains.constFind(uuid);
        const DomainInfo info = known != m_domains.cend()
                                    ? *known
                                    : DomainInfo{carriesOurMetadata(domain), vcpusOf(domain)};
        seen.insert(uuid, info);
        if (!info.ours)
            continue;

        const DomainCounters counters =
            parseDomainCounters(records[i]->params, records[i]->nparams);
        const auto before = m_previous.constFind(uuid);
        const bool hasBefore = before != m_previous.cend();
        SandboxSample sample =
            sandboxSample(hasBefore ? &before->counters : nullptr, counters,
                          hasBefore ? nowNs - before->monotonicNs : 0, info.vcpus);
        const bool managedSave =
            counters.state == VIR_DOMAIN_SHUTOFF && virDomainHasManagedSaveImage(domain, 0) > 0;
        sample.timeMs = tick.timeMs;
        sample.uuid = uuid;
        sample.name = QString::fromUtf8(virDomainGetName(domain));
        sample.state = domainStateFrom(counters.state, counters.reason, managedSave);
        tick.sandboxes.append(sample);
        previous.insert(uuid, Previous{counters, nowNs});
    }
    virDomainStatsRecordListFree(records);
    m_domains = std::move(seen);
    m_previous = std::move(previous);
    std::sort(tick.sandboxes.begin(), tick.sandboxes.end(),
              [](const SandboxSample& a, const SandboxSample& b) { return a.name < b.name; });

    const std::optional<HostCounters> host = readHost(conn);
    if (host) {
        tick.host = hostSample(m_host ? &*m_host : nullptr, *host);
    }
    tick.host.timeMs = tick.timeMs;
    for (const SandboxSample& sandbox : std::as_const(tick.sandboxes))
        if (sandbox.residentMiB)
            tick.host.sandboxesResidentMiB = tick.host.sandboxesResidentMiB.value_or(0) + *sandbox.residentMiB;
    m_host = host;
    return tick;
}

} // namespace sbw
