#include "sandbox/SandboxLimits.h"

#include "image/GuestImage.h"

#include <QThread>

#include <algorithm>
#include <limits>

namespace sbw {

QString DiskLimit::kernelParameter() const
{
    return grows ? QStringLiteral(" sbw.growfs=1") : QString();
}

Expected<DiskLimit> diskLimit(const GuestImage& image, int diskGiB)
{
    if (diskGiB < 0)
        return makeError(QStringLiteral("the disk limit must be a positive number of GiB"));
    DiskLimit limit;
    if (diskGiB == 0) {
        limit.bytes = image.diskVirtualSize;
        return limit;
    }
    limit.bytes = qint64(diskGiB) << 30;
    if (limit.bytes < image.diskVirtualSize) {
        const qint64 minimumGiB = (image.diskVirtualSize + (qint64(1) << 30) - 1) >> 30;
        return makeError(QStringLiteral("the disk limit of %1 GiB is below the size of image '%2' "
                                        "(%3): use %4 GiB or more")
                             .arg(diskGiB)
                             .arg(image.recipe, gibText(image.diskVirtualSize))
                             .arg(minimumGiB));
    }
    limit.grows = limit.bytes > image.diskVirtualSize;
    return limit;
}

QString gibText(qint64 bytes)
{
    constexpr qint64 kGiB = qint64(1) << 30;
    if (bytes % kGiB == 0)
        return QStringLiteral("%1 GiB").arg(bytes / kGiB);
    return QStringLiteral("%1 GiB").arg(double(bytes) / double(kGiB), 0, 'f', 1);
}

int defaultRunVcpus()
{
    return std::clamp(QThread::idealThreadCount(), 1, 2);
}

Expected<void> validateCpuShare(int percent, int vcpus)
{
    if (percent == 0 || (percent >= 1 && percent <= 100 * vcpus))
        return {};
    return makeError(QStringLiteral("a CPU share is a percentage of one host core from 1 to %1 "
                                    "(100 per vCPU), or 0 for no limit; %2 is not")
                         .arg(100 * vcpus)
                         .arg(percent));
}

std::optional<qint64> parseByteSize(const QString& text)
{
    static const QString suffixes = QStringLiteral("KMG");
    QString digits = text;
    int shift = 0;
    if (!text.isEmpty()) {
        const int unit = int(suffixes.indexOf(text.back().toUpper()));
        if (unit >= 0) {
            shift = 10 * (unit + 1);
            digits.chop(1);
        }
    }
    bool ok = false;
    const qint64 value = digits.toLongLong(&ok);
    if (!ok || value < 0 || value > (std::numeric_limits<qint64>::max() >> shift))
        return std::nullopt;
    return value << shift;
}

} // namespace sbw
