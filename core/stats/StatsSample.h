#pragma once

#include "hypervisor/DomainState.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

namespace sbw {

/// One sample of one sandbox. Rates are averages since the previous sample of the same
/// sandbox; they are empty on its first sample, after a counter went backwards (the domain was
/// restarted) and, for CPU, while the sandbox does not run.
struct SandboxSample
{
    qint64 timeMs = 0; ///< wall clock, ms since the Unix epoch (UTC)
    QString uuid;
    QString name; ///< libvirt domain name
    DomainState state = DomainState::Other;
    int vcpus = 1;                        ///< allocation the CPU figure is normalised to
    std::optional<double> cpuPercent;     ///< 0–100, share of its vCPUs' time (all of them = 100)
    std::optional<double> memoryUsedMiB;  ///< balloon available − unused (guest's view)
    std::optional<double> memoryTotalMiB; ///< balloon available (RAM the guest can use)
    /// The host memory its QEMU process holds ("balloon.rss", resident set): what the sandbox
    /// costs the host, guest RAM it touched plus QEMU's own (translation cache under TCG). Pages
    /// the host merged (KSM) count in every sandbox that maps them.
    std::optional<double> residentMiB;
    std::optional<double> diskReadBytesPerSec;  ///< sum over all disks
    std::optional<double> diskWriteBytesPerSec; ///< sum over all disks
    std::optional<double> netRxBytesPerSec;     ///< sum over all interfaces (none by default)
    std::optional<double> netTxBytesPerSec;
};

/// One sample of the host the connection points at (the remote host for remote URIs).
struct HostSample
{
    qint64 timeMs = 0;                ///< wall clock, ms since the Unix epoch (UTC)
    std::optional<double> cpuPercent; ///< 0–100, all host CPUs together; empty on the first tick
    std::optional<double> memoryUsedMiB;  ///< total − free − buffers − cached
    std::optional<double> memoryTotalMiB; ///< empty when the driver does not report memory
    /// The sum of the sampled sandboxes' SandboxSample::residentMiB; empty when none has one.
    std::optional<double> sandboxesResidentMiB;
    /// What kernel same-page merging saves: pages that map a merged page but need no copy of
    /// their own (virNodeGetMemoryParameters' shm_pages_sharing, pages of 4 KiB); empty where
    /// the host does not report it.
    std::optional<double> mergedMiB;
};

/// Everything one sampling tick produced: the host and every sandbox the workbench owns.
struct StatsTick
{
    qint64 timeMs = 0; ///< wall clock, ms since the Unix epoch (UTC)
    HostSample host;
    QList<SandboxSample> sandboxes;
};

} // namespace sbw

Q_DECLARE_METATYPE(sbw::StatsTick)
