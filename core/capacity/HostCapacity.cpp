#include "capacity/HostCapacity.h"

#include <QFile>
#include <QRegularExpression>
#include <QThread>

#include <algorithm>

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

int maxSandboxes(int configured, int sandboxMiB)
{
    bool ok = false;
    const int fromEnvironment = qEnvironmentVariableIntValue("SBW_MAX_SANDBOXES", &ok);
    if (ok && fromEnvironment >= 1)
        return fromEnvironment;
    return configured >= 1 ? configured : hostMaxSandboxes(sandboxMiB);
}

} // namespace sbw
