#pragma once

#include "base/Expected.h"
#include "stats/StatsCounters.h"
#include "stats/StatsSample.h"

#include <QHash>
#include <optional>

typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// One sampling step, synchronous: StatsSampler calls it on its thread once per tick, the
/// benchmark calls it directly. Not thread-safe; keep one per thread.
///
/// Per call: one virConnectGetAllDomainStats (state, cpu-total, balloon, block, interface;
/// NOWAIT, so a domain busy with another job is reported without the figures that need the
/// job instead of blocking), virNodeGetCPUStats, virNodeGetMemoryStats and
/// virNodeGetMemoryParameters (KSM). Domains count as the
/// workbench's when they carry its <metadata> namespace (kMetadataNamespace); that and the vCPU
/// count are looked up once per domain UUID (virDomainGetMetadata, virDomainGetInfo) and
/// cached. Shut-off domains also get virDomainHasManagedSaveImage (hibernated or not).
class StatsCollector
{
public:
    /// Samples the host and every workbench domain, sorted by name; rates are against the
    /// previous call. Errors: "cannot read domain statistics: <libvirt's reason>" (connection
    /// lost, driver without the API). Host figures the driver lacks are left empty.
    Expected<StatsTick> collect(virConnectPtr conn);

private:
    struct DomainInfo
    {
        bool ours = false;
        int vcpus = 1;
    };
    struct Previous
    {
        DomainCounters counters;
        qint64 monotonicNs = 0;
    };

    QHash<QString, DomainInfo> m_domains; ///< by UUID, every domain seen last call
    QHash<QString, Previous> m_previous;  ///< by UUID, our domains' counters of last call
    std::optional<HostCounters> m_host;
};

} // namespace sbw
