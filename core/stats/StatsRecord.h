#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

namespace sbw {

/// What a sandbox's domain is doing, from libvirt's domain state (plus a managed-save image for
/// Hibernated).
enum class SandboxState
{
    Running,
    Paused,     ///< suspended by virDomainSuspend or by libvirt (I/O error, migration, …)
    Hibernated, ///< shut off with a managed-save image (resumes where it stopped)
    ShutOff,
    ShuttingDown,
    Crashed,
    Suspended, ///< guest power-management suspend (pmsuspended)
    Other      ///< blocked or a state this libvirt added later
};

/// "running", "paused", "hibernated", "shut off", "shutting down", "crashed", "suspended",
/// "other" (the words `sbw stats` prints and --json writes).
QString stateName(SandboxState state);

/// True for states in which the guest makes no progress: paused, hibernated, shut off, crashed,
/// suspended. Graphs shade these spans.
bool isHalted(SandboxState state);

/// One sample of one sandbox. Rates are averages since the previous sample of the same
/// sandbox; they are empty on its first sample, after a counter went backwards (the domain was
/// restarted) and, for CPU, while the sandbox does not run.
struct SandboxSample
{
    qint64 timeMs = 0; ///< wall clock, ms since the Unix epoch (UTC)
    QString uuid;
    QString name; ///< libvirt domain name
    SandboxState state = SandboxState::Other;
    int vcpus = 1;                        ///< allocation the CPU figure is normalised to
    std::optional<double> cpuPercent;     ///< 0–100, share of its vCPUs' time (all of them = 100)
    std::optional<double> memoryUsedMiB;  ///< balloon available − unused (guest's view)
    std::optional<double> memoryTotalMiB; ///< balloon available (RAM the guest can use)
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
