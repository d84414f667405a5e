// Runs restored from the saved ready state against raw QEMU boots of the same image, in one run:
// - one run at a time: the raw boot (packaging/guest/boot-raw.sh, to the guest's ready line), a
//   booted run, a restored run and a run the pool serves (its microVM restored and paused
//   beforehand, as the window's) of a trivial script, to its result;
// - runs per minute at concurrency 1, 2, 4 and 8 (2 × c runs each): restored runs against raw
//   boots started c at a time;
// - host memory of idle restored sandboxes: the summed proportional set size (Pss, from
//   /proc/PID/smaps_rollup of their QEMU processes) of 1 and of 8, and what the 8th added.
// Medians of N repetitions for the single runs. Targets on a 2-core TCG host: a restored run
// within 0.5 × the raw boot; runs per minute at 8 at least 3 × raw boots at 8; the 8th idle
// sandbox adds at most 96 MiB. Needs root (the QEMU processes' smaps) for the memory figures.
// Usage: bench_scale [REPETITIONS (default 3)]

#include "BenchSetup.h"
#include "BenchStats.h"
#include "RawBoot.h"
#include "TestEnvironment.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "readystate/RunSandbox.h"
#include "run/EphemeralRun.h"
#include "sandbox/SandboxPool.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QThread>

#include <cstdio>
#include <future>
#include <vector>

namespace {

using sbw::test::median;
using sbw::test::rawBootMs;

/// A trivial run from the call to its result; -1 when it failed. With `pool`, a run it serves.
qint64 runMs(sbw::HypervisorConnection& connection, sbw::SandboxSource source, sbw::SandboxPool* pool = nullptr)
{
    sbw::RunOptions options;
    options.code = "print('ready')\n";
    options.source = source;
    options.pool = pool;
    QElapsedTimer timer;
    qint64 resultMs = -1;
    sbw::RunCallbacks callbacks;
    callbacks.onResult = [&](const sbw::RunResult& result) {
        if (result.error.isEmpty() && result.stdoutData == "ready\n")
            resultMs = timer.elapsed();
    };
    timer.start();
    const sbw::RunResult result = sbw::runEphemeral(connection, options, callbacks, nullptr);
    if (!result.error.isEmpty())
        std::fprintf(stderr, "run failed: %s\n", qPrintable(result.error));
    return resultMs;
}

/// Runs `total` jobs `concurrency` at a time; returns jobs per minute, 0 when one failed.
double perMinute(int total, int concurrency, const std::function<bool()>& job)
{
    QElapsedTimer timer;
    timer.start();
    bool allOk = true;
    for (int started = 0; started < total; started += concurrency) {
        std::vector<std::future<bool>> wave;
        for (int i = 0; i < concurrency && started + i < total; ++i)
            wave.push_back(std::async(std::launch::async, job));
        for (auto& one : wave)
            allOk = one.get() && allOk;
    }
    return allOk ? total * 60000.0 / double(timer.elapsed()) : 0.0;
}

/// /sys/kernel/mm/ksm/`name` as a number; -1 when there is none.
qint64 ksm(const char* name)
{
    QFile file(QStringLiteral("/sys/kernel/mm/ksm/%1").arg(QLatin1String(name)));
    return file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toLongLong() : -1;
}

/// Summed Pss of the QEMU processes of `domains`, MiB; -1 when one cannot be read.
double pssMiB(const QStringList& domains)
{
    qint64 kib = 0;
    for (const QString& domain : domains) {
        QFile pidFile(QStringLiteral("/run/libvirt/qemu/%1.pid").arg(domain));
        if (!pidFile.open(QIODevice::ReadOnly))
            return -1;
        QFile smaps(QStringLiteral("/proc/%1/smaps_rollup").arg(QString::fromLatin1(pidFile.readAll().trimmed())));
        if (!smaps.open(QIODevice::ReadOnly))
            return -1;
        const auto match = QRegularExpression(QStringLiteral("^Pss:\\s+(\\d+) kB"), QRegularExpression::MultilineOption)
                               .match(QString::fromLatin1(smaps.readAll()));
        if (!match.hasMatch())
            return -1;
        kib += match.captured(1).toLongLong();
    }
    return double(kib) / 1024.0;
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    const int repetitions = sbw::test::benchRepetitions(argc, argv);
    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (!sbw::test::openBenchConnection(connection))
        return 1;
    const bool kvm = connection.accelerator() == sbw::Accelerator::Kvm;
    const QString accel = kvm ? QStringLiteral("kvm") : QStringLiteral("tcg");
    const int vcpus = sbw::SandboxOptions{}.vcpus;

    QElapsedTimer saving;
    saving.start();
    if (runMs(connection, sbw::SandboxSource::Restore) < 0) // saves the state when there is none
        return 1;
    const qint64 firstMs = saving.elapsed();

    // The window's pool, filled by a restore as the Workbench fills it.
    sbw::SandboxPool pool(connection, [&connection](const sbw::SandboxOptions& options, const std::atomic_bool* cancel) {
        return sbw::startRunSandbox(connection, options, sbw::SandboxSource::Restore, {}, cancel);
    });
    pool.refill(sbw::SandboxOptions{});
    // Nothing else runs while a figure is taken: the pool is full before each step.
    const auto waitForPool = [&pool] {
        QElapsedTimer filling;
        filling.start();
        while (!pool.hasReady() && filling.elapsed() < 300000)
            QThread::msleep(50);
    };
    std::vector<qint64> raw, booted, restored, pooled;
    for (int i = 0; i < repetitions; ++i) {
        waitForPool();
        raw.push_back(rawBootMs(accel, vcpus));
        booted.push_back(runMs(connection, sbw::SandboxSource::Boot));
        restored.push_back(runMs(connection, sbw::SandboxSource::Restore));
        pooled.push_back(runMs(connection, sbw::SandboxSource::Restore, &pool));
        std::printf("  %d: raw boot %lld ms, booted run %lld ms, restored run %lld ms, pooled run %lld ms\n", i + 1,
                    (long long)raw.back(), (long long)booted.back(), (long long)restored.back(),
                    (long long)pooled.back());
    }
    waitForPool();
    pool.setSize(0);
    const qint64 rawMedian = median(raw);
    const qint64 restoredMedian = median(restored);
    std::printf("accelerator: %s, %d vCPU(s), medians of %d:\n", qPrintable(accel), vcpus, repetitions);
    std::printf("  first restored run (state saved if missing) %6lld ms\n", (long long)firstMs);
    std::printf("  raw qemu boot to ready line     %6lld ms (baseline)\n", (long long)rawMedian);
    std::printf("  booted run → result             %6lld ms (%.2f × raw)\n", (long long)median(booted),
                double(median(booted)) / double(rawMedian));
    std::printf("  restored run → result           %6lld ms (%.2f × raw; target ≤ 0.5) %s\n",
                (long long)restoredMedian, double(restoredMedian) / double(rawMedian),
                restoredMedian * 2 <= rawMedian ? "met" : "NOT met");
    std::printf("  pooled run → result             %6lld ms (%.2f × raw)\n", (long long)median(pooled),
                double(median(pooled)) / double(rawMedian));

    double rawAt8 = 0, restoredAt8 = 0;
    for (int c : {1, 2, 4, 8}) {
        const double rawRate = perMinute(2 * c, c, [&] { return rawBootMs(accel, vcpus) > 0; });
        const double restoredRate =
            perMinute(2 * c, c, [&] { return runMs(connection, sbw::SandboxSource::Restore) > 0; });
        std::printf("  concurrency %d: raw boots %5.1f /min, restored runs %5.1f /min (%.2f ×)\n", c, rawRate,
                    restoredRate, rawRate > 0 ? restoredRate / rawRate : 0.0);
        rawAt8 = rawRate;
        restoredAt8 = restoredRate;
    }
    std::printf("  runs per minute at 8: %.2f × raw boots (target ≥ 3) %s\n",
                rawAt8 > 0 ? restoredAt8 / rawAt8 : 0.0, restoredAt8 >= 3 * rawAt8 ? "met" : "NOT met");

    std::vector<std::unique_ptr<sbw::Sandbox>> idle;
    QStringList domains;
    double pss1 = -1, pss7 = -1, pss8 = -1;
    for (int i = 0; i < 8; ++i) {
        auto sandbox = sbw::startRunSandbox(connection, {}, sbw::SandboxSource::Restore, {}, nullptr);
        if (!sandbox) {
            std::fprintf(stderr, "idle sandbox %d failed: %s\n", i + 1, qPrintable(sandbox.error().message));
            return 1;
        }
        domains << sandbox.value()->domainName();
        idle.push_back(std::move(sandbox.value()));
        QThread::sleep(5); // idle
        const double pss = pssMiB(domains);
        if (i == 0)
            pss1 = pss;
        if (i == 6)
            pss7 = pss;
        if (i == 7)
            pss8 = pss;
    }
    std::printf("  idle sandboxes, host memory (Pss): 1: %.0f MiB, 8: %.0f MiB; the 8th added %.0f MiB "
                "(target ≤ 96) %s\n",
                pss1, pss8, pss8 - pss7, pss8 - pss7 <= 96 ? "met" : "NOT met");
    if (ksm("run") == 1) {
        // Same-page merging scans at its own pace (pages_to_scan per sleep_millisecs): two full
        // passes over the mergeable memory, at most 5 min.
        QElapsedTimer settling;
        settling.start();
        const qint64 passes = ksm("full_scans");
        while (ksm("full_scans") < passes + 2 && settling.elapsed() < 300000)
            QThread::sleep(2);
        const qint64 sharing = ksm("pages_sharing");
        std::printf("  with KSM after %lld s: 8 idle sandboxes %.0f MiB (Pss), %.0f MiB shared by KSM\n",
                    (long long)(settling.elapsed() / 1000), pssMiB(domains), double(sharing) * 4096 / 1048576.0);
    } else {
        std::printf("  KSM is off on this host (/sys/kernel/mm/ksm/run)\n");
    }
    return 0;
}
