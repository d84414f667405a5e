// Cold ephemeral run versus a raw QEMU boot of the same kernel, initramfs and image.
//
// Baseline: packaging/guest/boot-raw.sh, i.e. qemu-system-x86_64 -kernel/-initrd on the image
// until the guest's init prints "sbw-guest: ready". Workbench: runEphemeral() of a trivial
// Python script, from the call to the first stdout byte and to the result (VM destroyed).
// Both use the same accelerator (KVM when usable, else TCG). Prints medians of N repetitions
// (default 3) and the ratio; the goal is cold run <= raw boot + 2000 ms.

#include "DataPaths.h"
#include "EphemeralRun.h"
#include "HypervisorConnection.h"
#include "LibvirtEventLoop.h"
#include "TestEnvironment.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

qint64 median(std::vector<qint64> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? -1 : values[values.size() / 2];
}

qint64 rawBootMs(const QString& accel)
{
    QProcess process;
    process.start(QStringLiteral(SBW_SOURCE_DIR "/packaging/guest/boot-raw.sh"),
                  {QStringLiteral("--accel"), accel, sbw::paths::imagesDir() + QLatin1String("/minimal")});
    process.waitForFinished(300000);
    const QString output = QString::fromUtf8(process.readAllStandardOutput());
    const auto match = QRegularExpression(QStringLiteral("raw boot to ready: (\\d+) ms")).match(output);
    if (!match.hasMatch()) {
        std::fprintf(stderr, "boot-raw.sh failed: %s%s\n", qPrintable(output),
                     process.readAllStandardError().constData());
        return -1;
    }
    return match.captured(1).toLongLong();
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 3;

    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
        return 1;
    }
    const bool kvm = connection.accelerator() == sbw::Accelerator::Kvm;
    const QString accel = kvm ? QStringLiteral("kvm") : QStringLiteral("tcg");

    std::vector<qint64> raw, firstByte, result, boot;
    for (int i = 0; i < repetitions; ++i) {
        raw.push_back(rawBootMs(accel));

        sbw::RunOptions options;
        options.code = "print('ready')\n";
        QElapsedTimer timer;
        qint64 first = -1;
        sbw::RunCallbacks callbacks;
        callbacks.onStdout = [&](QByteArrayView) {
            if (first < 0)
                first = timer.elapsed();
        };
        timer.start();
        const sbw::RunResult run = sbw::runEphemeral(connection, options, callbacks, nullptr);
        result.push_back(timer.elapsed());
        if (!run.error.isEmpty()) {
            std::fprintf(stderr, "run failed: %s\n", qPrintable(run.error));
            return 1;
        }
        firstByte.push_back(first);
        boot.push_back(run.bootMs);
        std::printf("  run %d: raw boot %lld ms | workbench: boot %lld ms, first byte %lld ms, result %lld ms\n",
                    i + 1, (long long)raw.back(), (long long)run.bootMs, (long long)first,
                    (long long)result.back());
    }

    const qint64 rawMedian = median(raw);
    const qint64 resultMedian = median(result);
    std::printf("accelerator: %s, %d repetitions, medians:\n", qPrintable(accel), repetitions);
    std::printf("  raw qemu boot to ready line     %6lld ms (baseline)\n", (long long)rawMedian);
    std::printf("  workbench boot (start→SSH)      %6lld ms\n", (long long)median(boot));
    std::printf("  workbench run → first byte      %6lld ms\n", (long long)median(firstByte));
    std::printf("  workbench run → result          %6lld ms\n", (long long)resultMedian);
    std::printf("  ratio result / raw boot         %6.2f\n", double(resultMedian) / double(rawMedian));
    std::printf("  result - raw boot               %6lld ms (goal: <= 2000 ms) %s\n",
                (long long)(resultMedian - rawMedian), resultMedian - rawMedian <= 2000 ? "met" : "NOT met");
    return 0;
}
