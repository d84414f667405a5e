#include "RawBoot.h"

#include "base/DataPaths.h"

#include <QProcess>
#include <QRegularExpression>

#include <cstdio>

namespace sbw::test {

qint64 rawBootMs(const QString& accel, int vcpus)
{
    QProcess process;
    process.start(QStringLiteral(SBW_SOURCE_DIR "/packaging/guest/boot-raw.sh"),
                  {QStringLiteral("--accel"), accel, QStringLiteral("--smp"), QString::number(vcpus),
                   paths::imagesDir() + QLatin1String("/minimal")});
    process.waitForFinished(600000);
    const QString output = QString::fromUtf8(process.readAllStandardOutput());
    const auto match = QRegularExpression(QStringLiteral("raw boot to ready: (\\d+) ms")).match(output);
    if (!match.hasMatch()) {
        std::fprintf(stderr, "boot-raw.sh failed: %s%s\n", qPrintable(output),
                     process.readAllStandardError().right(2000).constData());
        return -1;
    }
    return match.captured(1).toLongLong();
}

} // namespace sbw::test
