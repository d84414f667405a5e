// Forking a running workspace next to saving and restoring an identical domain with virsh.
//
// Two 512 MiB workspaces of the minimal image, booted and idle (created and removed by the
// program). On the first: Workspace::fork() with its memory (the fork runs on) and with its
// disk alone (ForkOptions::memory false; the fork is left stopped), each fork removed again
// untimed; while each fork runs, how long the source is not running (paused for the internal
// snapshot and the managed save, shut off while its overlay is copied, restored) is read from
// libvirt every 10 ms. Then the preview of a trivial asked command (`true`, ActionPreview: an
// offline fork with memory, the command with its file-change scans, the process lists) up to
// its report, the fork deleted again untimed. Baseline in the same run, on the second: `virsh save` to a file and
// `virsh restore` of it, which is what moving one running domain's state costs without a copy
// of its disk. Prints medians of N repetitions (default 5) in ms and the ratios to save +
// restore. Run under `flock /tmp/sbw-guest.lock`:
//
//   build/tests/bench/bench_fork [repetitions]

#include "BenchStats.h"
#include "BenchWorkspace.h"
#include "TestEnvironment.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "preview/ActionPreview.h"
#include "workspace/Workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <libvirt/libvirt.h>
#include <thread>
#include <vector>

namespace {

using sbw::test::failBench;
using sbw::test::median;

/// One timed step: its wall time, and how long the source was not running meanwhile.
struct Sample
{
    qint64 ms = -1;
    qint64 sourceHeldMs = 0;
};

/// A measured way of branching off the running source; each run(i) is one repetition.
struct Case
{
    const char* name;
    std::function<Sample(int)> run;
};

void waitRunning(sbw::Workspace& workspace)
{
    for (int tries = 0; tries < 600 && workspace.state() != sbw::WorkspaceState::Running; ++tries)
        QThread::msleep(100);
    if (workspace.state() != sbw::WorkspaceState::Running)
        failBench(
            QStringLiteral("workspace %1 did not come back to running").arg(workspace.name()));
}

void bootReady(sbw::Workspace& workspace)
{
    if (auto started = workspace.start(); !started)
        failBench(started.error().message);
    sbw::ExecRequest request;
    request.command = "exec true";
    if (!workspace.exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(240)))
        failBench(QStringLiteral("workspace %1 did not boot").arg(workspace.name()));
    workspace.closeSession();
}

/// Runs `step` while another thread reads the state of `domain` every 10 ms and adds up the
/// time it was not running (libvirt's own state: paused for a snapshot or save, shut off).
Sample timeWhileWatching(sbw::HypervisorConnection& connection, const QString& domain,
                         const std::function<bool()>& step)
{
    std::atomic<bool> done = false;
    std::atomic<qint64> heldMs = 0;
    std::thread watcher([&] {
        virDomainPtr watched =
            virDomainLookupByName(connection.handle(), domain.toUtf8().constData());
        if (!watched)
            return;
        auto last = std::chrono::steady_clock::now();
        while (!done) {
            int state = VIR_DOMAIN_NOSTATE;
            int reason = 0;
            const bool running =
                virDomainGetState(watched, &state, &reason, 0) == 0 && state == VIR_DOMAIN_RUNNING;
            const auto now = std::chrono::steady_clock::now();
            if (!running)
                heldMs += std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count();
            last = now;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        virDomainFree(watched);
    });
    QElapsedTimer timer;
    timer.start();
    const bool ok = step();
    const qint64 ms = timer.elapsed();
    done = true;
    watcher.join();
    return {ok ? ms : -1, heldMs};
}

bool virsh(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral("virsh"),
                  QStringList{QStringLiteral("-q"), QStringLiteral("-c"), sbw::test::guestUri()} +
                      arguments);
    return process.waitForFinished(300000) && process.exitCode() == 0;
}

/// A fork of `source` into a fresh name, timed, then removed (untimed).
Case forkCase(sbw::HypervisorConnection& connection, sbw::Workspace& source, const char* name,
              bool memory)
{
    return {name, [&connection, &source, memory](int i) {
                const QString fork = QStringLiteral("%1-%2%3")
                                         .arg(source.name())
                                         .arg(QLatin1String(memory ? "m" : "d"))
                                         .arg(i);
                std::unique_ptr<sbw::Workspace> made;
                QString error;
                const Sample sample =
                    timeWhileWatching(connection, source.record().domainName, [&] {
                        auto forked = source.fork(fork, {QString(), memory});
                        if (forked)
                            made = std::move(forked.value());
                        else
                            error = forked.error().message;
                        return forked.ok();
                    });
                if (!made)
                    failBench(QStringLiteral("fork %1: %2").arg(fork, error));
                if (auto removed = made->remove(); !removed)
                    failBench(removed.error().message);
                waitRunning(source); // the next round starts once the source's agent is back
                return sample;
            }};
}

/// A preview of `true` asked in `source`, timed up to its report, then discarded (untimed).
Case previewCase(sbw::HypervisorConnection& connection, sbw::Workspace& source)
{
    return {"preview of `true`", [&connection, &source](int) {
                auto opened = sbw::Workspace::open(connection, source.name());
                if (!opened)
                    failBench(opened.error().message);
                std::shared_ptr<sbw::Workspace> workspace = std::move(opened.value());
                sbw::ActionRequest request;
                request.sandbox = source.name();
                request.kind = sbw::ActionKind::Exec;
                request.command = QStringLiteral("true");
                std::unique_ptr<sbw::ActionPreview> preview;
                QString error;
                const Sample sample =
                    timeWhileWatching(connection, source.record().domainName, [&] {
                        auto ran = sbw::ActionPreview::run(workspace, request, nullptr);
                        if (ran)
                            preview = std::move(ran.value());
                        else
                            error = ran.error().message;
                        return ran.ok();
                    });
                if (!preview)
                    failBench(QStringLiteral("preview: %1").arg(error));
                if (preview->report().command.status.exitStatus != 0)
                    failBench(QStringLiteral("preview of true: %1").arg(preview->report().summary()));
                if (auto removed = preview->discard(); !removed)
                    failBench(removed.error().message);
                waitRunning(source);
                return sample;
            }};
}

void printCase(const char* name, const std::vector<Sample>& samples, qint64 baselineMs)
{
    std::vector<qint64> ms;
    std::vector<qint64> held;
    for (const Sample& sample : samples) {
        ms.push_back(sample.ms);
        held.push_back(sample.sourceHeldMs);
    }
    const qint64 total = median(ms);
    std::printf("%-22s %6lld ms   source not running %6lld ms   ratio to save + restore %.2f\n",
                name, total, median(held),
                baselineMs > 0 ? double(total) / double(baselineMs) : 0.0);
}

void measure(sbw::HypervisorConnection& connection, sbw::Workspace& source, sbw::Workspace& twin,
             int repetitions)
{
    bootReady(source);
    bootReady(twin);
    const std::vector<Case> cases = {forkCase(connection, source, "fork with memory", true),
                                     forkCase(connection, source, "fork disk only", false),
                                     previewCase(connection, source)};
    std::vector<std::vector<Sample>> samples(cases.size());
    std::vector<qint64> saves;
    std::vector<qint64> restores;
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/bench-fork-XXXXXX"));
    const QString image = dir.filePath(QStringLiteral("twin.save"));
    const QString domain = twin.record().domainName;
    for (int i = 0; i < repetitions; ++i) {
        for (size_t c = 0; c < cases.size(); ++c)
            samples[c].push_back(cases[c].run(i));
        QElapsedTimer timer;
        timer.start();
        if (!virsh({QStringLiteral("save"), domain, image}))
            failBench(QStringLiteral("virsh save %1 failed").arg(domain));
        saves.push_back(timer.restart());
        if (!virsh({QStringLiteral("restore"), image}))
            failBench(QStringLiteral("virsh restore %1 failed").arg(image));
        restores.push_back(timer.elapsed());
        QFile::remove(image);
        waitRunning(twin);
    }
    const qint64 baseline = median(saves) + median(restores);
    std::printf(
        "baseline: virsh save %lld ms + virsh restore %lld ms = %lld ms (an identical domain)\n",
        median(saves), median(restores), baseline);
    for (size_t c = 0; c < cases.size(); ++c)
        printCase(cases[c].name, samples[c], baseline);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "bench_fork: %s\n", qPrintable(opened.error().message));
        return 1;
    }
    sbw::WorkspaceSettings settings;
    settings.memoryMiB = 512;
    std::printf("median of %d, %s; two running 512 MiB workspaces of the minimal image\n",
                repetitions,
                qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    int twinStatus = 0;
    const int status = sbw::test::measureOnNewWorkspace(
        connection, QStringLiteral("bench-fork"), settings, "bench_fork",
        [&](sbw::Workspace& source) {
            twinStatus = sbw::test::measureOnNewWorkspace(
                connection, QStringLiteral("bench-twin"), settings, "bench_fork",
                [&](sbw::Workspace& twin) { measure(connection, source, twin, repetitions); });
        });
    return status != 0 ? status : twinStatus;
}
