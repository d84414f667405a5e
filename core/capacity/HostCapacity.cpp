#include "capacity/HostCapacity.h"

#include <QFile>
#include <QRegularExpression>
#include <QThread>

#include <libvirt/libvirt.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace sbw {
namespace {

constexpr int kSandboxesPerCore = 4;
constexpr int kQemuOverheadMiB = 128;
constexpr int kMostSandboxes = 64;

qint64 memAvailableMiB()
{
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (!meminfo.open(QIODevice::ReadOnly))
        return 0;
    const auto match = QRegularExpression(QStringLiteral("^MemAvailable:\\s+(\\d+) kB"), QRegularExpression::MultilineOption)
                           .match(QString::fromLatin1(meminfo.readAll()));
    return match.hasMatch() ? match.captured(1).toLongLong() / 1024 : 0;
}

} // namespace

int defaultMaxSandboxes(int cores, qint64 availableMiB, int sandboxMiB)
{
    const qint64 byMemory = availableMiB / std::max(1, sandboxMiB + kQemuOverheadMiB);
    const qint64 byCores = qint64(std::max(1, cores)) * kSandboxesPerCore;
    return int(std::clamp<qint64>(std::min(byMemory, byCores), 1, kMostSandboxes));
}

int hostMaxSandboxes(int sandboxMiB)
{
    return defaultMaxSandboxes(QThread::idealThreadCount(), memAvailableMiB(), sandboxMiB);
}

int nodeMaxSandboxes(virConnectPtr connection, int sandboxMiB)
{
    virNodeInfo info{};
    int count = 0;
    if (!connection || virNodeGetInfo(connection, &info) < 0 ||
        virNodeGetMemoryStats(connection, VIR_NODE_MEMORY_STATS_ALL_CELLS, nullptr, &count, 0) < 0 || count <= 0)
        return 1;
    std::vector<virNodeMemoryStats> stats(static_cast<size_t>(count));
    if (virNodeGetMemoryStats(connection, VIR_NODE_MEMORY_STATS_ALL_CELLS, stats.data(), &count, 0) < 0)
        return 1;
    qint64 availableKiB = 0;
    for (const virNodeMemoryStats& stat : stats) {
        const std::string_view field(stat.field);
        if (field == VIR_NODE_MEMORY_STATS_FREE || field == VIR_NODE_MEMORY_STATS_BUFFERS ||
            field == VIR_NODE_MEMORY_STATS_CACHED)
            availableKiB += qint64(stat.value);
    }
    return defaultMaxSandboxes(int(info.cpus), availableKiB / 1024, sandboxMiB);
}

int maxSandboxes(int configured, int sandboxMiB, virConnectPtr remote)
{
    bool ok = false;
    const int fromEnvironment = qEnvironmentVariableIntValue("SBW_MAX_SANDBOXES", &ok);
    if (ok && fromEnvironment >= 1)
        return fromEnvironment;
    if (configured >= 1)
        return configured;
    return remote ? nodeMaxSandboxes(remote, sandboxMiB) : hostMaxSandboxes(sandboxMiB);
}

} // namespace sbw
