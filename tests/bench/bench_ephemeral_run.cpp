// Cold ephemeral run versus a raw QEMU boot of the same kernel, initramfs and image.
//
// Baseline: packaging/guest/boot-raw.sh, i.e. qemu-system-x86_64 -kernel/-initrd on the image
// until the guest's init prints "sbw-guest: ready". Workbench: runEphemeral() of a trivial
// Python script, from the call to the first stdout byte and to the result (VM destroyed).
// Both use the same accelerator (KVM when usable, else TCG) and vCPU count. Prints medians of
// N repetitions and the ratio; the goal is cold run <= raw boot + 2000 ms. Usage:
// bench_ephemeral_run [REPETITIONS (default 3)] [VCPUS (default: the sandbox default)]. "result" is when the
// script's outcome is reported (RunCallbacks::onResult); "VM gone" when the domain and its
// overlay have been removed. Then the same run N times on a SandboxPool's pre-booted sandbox
// (the pool fills after a first, uncounted run; each timed run waits until it is ready again).
// For the breakdown it also times, on one booted sandbox, an exec
// round trip (`true`) and a Python start (`python3 -c pass`), the first one after boot
// (cold page cache) and warm ones.

#include "BenchSetup.h"
#include "BenchStats.h"
#include "RawBoot.h"
#include "ExecTiming.h"
#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/EphemeralRun.h"
#include "sandbox/Sandbox.h"
#include "sandbox/SandboxPool.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using sbw::test::median;
using sbw::test::rawBootMs;

struct TimedRun
{
    sbw::RunResult run;
    qint64 firstByteMs = -1; ///< runEphemeral() call → first stdout byte
    qint64 resultMs = -1;    ///< → RunCallbacks::onResult
    qint64 goneMs = -1;      ///< → runEphemeral() returned (VM and overlay removed)
};

/// One run of a trivial Python script (prints "ready").
TimedRun timedRun(sbw::HypervisorConnection& connection, sbw::RunOptions options)
{
    options.code = "print('ready')\n";
    TimedRun timed;
    QElapsedTimer timer;
    sbw::RunCallbacks callbacks;
    callbacks.onStdout = [&](QByteArrayView) {
        if (timed.firstByteMs < 0)
            timed.firstByteMs = timer.elapsed();
    };
    callbacks.onResult = [&](const sbw::RunResult&) { timed.resultMs = timer.elapsed(); };
    timer.start();
    timed.run = sbw::runEphemeral(connection, options, callbacks, nullptr);
    timed.goneMs = timer.elapsed();
    return timed;
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    const int repetitions = sbw::test::benchRepetitions(argc, argv);
    const int vcpus = argc > 2 ? std::max(1, atoi(argv[2])) : sbw::SandboxOptions{}.vcpus;

    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (!sbw::test::openBenchConnection(connection))
        return 1;
    const bool kvm = connection.accelerator() == sbw::Accelerator::Kvm;
    const QString accel = kvm ? QStringLiteral("kvm") : QStringLiteral("tcg");

    std::vector<qint64> raw, firstByte, result, gone, boot;
    for (int i = 0; i < repetitions; ++i) {
        raw.push_back(rawBootMs(accel, vcpus));

        sbw::RunOptions options;
        options.sandbox.vcpus = vcpus;
        options.source = sbw::SandboxSource::Boot; // restored runs: bench_scale
        const TimedRun run = timedRun(connection, options);
        if (!run.run.error.isEmpty()) {
            std::fprintf(stderr, "run failed: %s\n", qPrintable(run.run.error));
            return 1;
        }
        gone.push_back(run.goneMs);
        result.push_back(run.resultMs);
        firstByte.push_back(run.firstByteMs);
        boot.push_back(run.run.bootMs);
        std::printf("  run %d: raw boot %lld ms | workbench: boot %lld ms, first byte %lld ms, "
                    "result %lld ms, VM gone %lld ms\n",
                    i + 1, (long long)raw.back(), (long long)run.run.bootMs, (long long)run.firstByteMs,
                    (long long)result.back(), (long long)gone.back());
    }

    // Runs that take the pool's pre-booted sandbox; the first run only fills the pool.
    std::vector<qint64> preFirstByte, preResult;
    {
        sbw::SandboxPool pool(connection);
        sbw::RunOptions options;
        options.sandbox.vcpus = vcpus;
        options.pool = &pool;
        for (int i = 0; i <= repetitions; ++i) {
            QElapsedTimer waited;
            waited.start();
            while (i > 0 && !pool.hasReady() && waited.elapsed() < 300000)
                QThread::msleep(50);
            const TimedRun run = timedRun(connection, options);
            if (!run.run.error.isEmpty() || run.run.preBooted != (i > 0)) {
                std::fprintf(stderr, "pre-booted run %d failed: %s\n", i, qPrintable(run.run.error));
                return 1;
            }
            if (i == 0)
                continue;
            preFirstByte.push_back(run.firstByteMs);
            preResult.push_back(run.resultMs);
            std::printf("  pre-booted run %d: resume %lld ms, first byte %lld ms, result %lld ms\n", i,
                        (long long)run.run.bootMs, (long long)run.firstByteMs, (long long)run.resultMs);
        }
    }

    qint64 execTrue = -1, pythonCold = -1, pythonStart = -1;
    sbw::SandboxOptions warmOptions;
    warmOptions.vcpus = vcpus;
    if (auto sandbox = sbw::Sandbox::start(connection, warmOptions); sandbox && sandbox.value()->waitReady(nullptr)) {
        pythonCold = sbw::test::medianExecMs(sandbox.value()->session(), "exec python3 -c pass", 1);
        execTrue = sbw::test::medianExecMs(sandbox.value()->session(), "true", 5);
        pythonStart = sbw::test::medianExecMs(sandbox.value()->session(), "exec python3 -c pass", 3);
    }

    const qint64 rawMedian = median(raw);
    const qint64 resultMedian = median(result);
    std::printf("accelerator: %s, %d vCPU(s), %d repetitions, medians:\n", qPrintable(accel), vcpus,
                repetitions);
    std::printf("  raw qemu boot to ready line     %6lld ms (baseline)\n", (long long)rawMedian);
    std::printf("  workbench boot (start→SSH)      %6lld ms\n", (long long)median(boot));
    std::printf("  workbench run → first byte      %6lld ms\n", (long long)median(firstByte));
    std::printf("  workbench run → result          %6lld ms\n", (long long)resultMedian);
    std::printf("  workbench run → VM gone         %6lld ms\n", (long long)median(gone));
    std::printf("  pre-booted run → first byte     %6lld ms\n", (long long)median(preFirstByte));
    std::printf("  pre-booted run → result         %6lld ms\n", (long long)median(preResult));
    std::printf("  exec round trip (true)          %6lld ms\n", (long long)execTrue);
    std::printf("  first python3 -c pass after boot %5lld ms\n", (long long)pythonCold);
    std::printf("  python3 -c pass, warm           %6lld ms\n", (long long)pythonStart);
    std::printf("  ratio result / raw boot         %6.2f\n", double(resultMedian) / double(rawMedian));
    std::printf("  result - raw boot               %6lld ms (goal: <= 2000 ms) %s\n",
                (long long)(resultMedian - rawMedian), resultMedian - rawMedian <= 2000 ? "met" : "NOT met");
    return 0;
}
