// What listing a command's file changes costs: `true` through runWorkspaceCommand() with and
// without WorkspaceCommandOptions::trackFileChanges, on the minimal image's /root and on /root
// with 2,000 and 15,000 more small text files; plus the scan alone (ChangeWatch's scan before,
// minus an exec of `true`) and the first tracked command after the files appeared (its first
// refresh of the shadow copy runs in the background). The baseline, measured in the same run, is the untracked command. Prints the
// medians of N repetitions (default 9) in ms and the ratios. Run under
// `flock /tmp/sbw-guest.lock`:
//
//   build/tests/bench/bench_file_changes [repetitions]

#include "BenchStats.h"
#include "BenchWorkspace.h"
#include "TestEnvironment.h"
#include "changes/ChangeWatch.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommand.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>

#include <cstdio>
#include <vector>

namespace {

using sbw::test::failBench;
using sbw::test::median;

constexpr auto kReady = std::chrono::seconds(240);

/// Wall time of `true` through runWorkspaceCommand(), the scan after included; `endedMs`: until
/// its end was told (WorkspaceCommandOptions::onEnded, what a person at the window waits for).
qint64 timedTrue(sbw::Workspace& workspace, bool tracked, QString* summary = nullptr, qint64* endedMs = nullptr)
{
    sbw::WorkspaceCommandOptions options;
    options.command = QStringLiteral("true");
    options.shellCommand = "cd /root && exec true";
    options.workdir = QStringLiteral("/root");
    options.readyDeadline = std::chrono::steady_clock::now() + kReady;
    options.trackFileChanges = tracked;
    QElapsedTimer timer;
    options.onEnded = [&](const sbw::WorkspaceCommandResult&) {
        if (endedMs)
            *endedMs = timer.elapsed();
    };
    timer.start();
    const sbw::WorkspaceCommandResult result = sbw::runWorkspaceCommand(workspace, options);
    const qint64 ms = timer.elapsed();
    if (!result.error.isEmpty())
        failBench(result.error);
    if (summary)
        *summary = result.fileChanges.summary();
    return ms;
}

/// Wall time of one plain exec of `command`.
qint64 timedExec(sbw::Workspace& workspace, const QByteArray& command)
{
    sbw::ExecRequest request;
    request.command = command;
    QElapsedTimer timer;
    timer.start();
    if (!workspace.exec(request, std::chrono::steady_clock::now() + kReady))
        failBench(QStringLiteral("exec failed: %1").arg(QString::fromUtf8(command)));
    return timer.elapsed();
}

qint64 entriesUnderRoot(sbw::Workspace& workspace)
{
    QByteArray out;
    sbw::ExecRequest request;
    request.command = "find /root -xdev | wc -l";
    request.onStdout = [&](QByteArrayView bytes) { out.append(bytes); };
    workspace.exec(request, std::chrono::steady_clock::now() + kReady);
    return out.trimmed().toLongLong();
}

void measureTree(sbw::Workspace& workspace, const char* label, int repetitions)
{
    const qint64 entries = entriesUnderRoot(workspace);
    const qint64 first = timedTrue(workspace, true); // fills the shadow copy of new files
    std::vector<qint64> plain, tracked, told, scan, round;
    QString summary;
    for (int i = 0; i < repetitions; ++i) {
        plain.push_back(timedTrue(workspace, false));
        qint64 endedMs = -1;
        tracked.push_back(timedTrue(workspace, true, &summary, &endedMs));
        told.push_back(endedMs);
        const sbw::ChangeWatch watch = sbw::ChangeWatch::forCommand(QStringLiteral("/root"));
        round.push_back(timedExec(workspace, "exec true"));
        scan.push_back(timedExec(workspace, watch.beforeScanCommand() + "; rm -f " + watch.beforeFile()));
    }
    const qint64 p = median(plain), t = median(tracked), e = median(told), s = median(scan) - median(round);
    std::printf("%-22s %7lld entries: true %4lld ms, tracked %4lld ms (+%lld ms, x%.2f), its end told at %4lld ms "
                "(+%lld ms); scan alone %4lld ms (%.1f us/entry); first tracked command %lld ms; \"%s\"\n",
                label, qlonglong(entries), qlonglong(p), qlonglong(t), qlonglong(t - p), p > 0 ? double(t) / double(p) : 0.0,
                qlonglong(e), qlonglong(e - p),
                qlonglong(s), entries > 0 ? 1000.0 * double(s) / double(entries) : 0.0, qlonglong(first), qPrintable(summary));
}

void addFiles(sbw::Workspace& workspace, int count, const char* folder)
{
    timedExec(workspace, QByteArray("mkdir -p /root/") + folder + " && cd /root/" + folder +
                             " && python3 -c 'import sys\nfor i in range(" + QByteArray::number(count) +
                             "): open(\"f%d.txt\" % i, \"w\").write(\"line %d\\n\" % i)'");
}

void measure(sbw::Workspace& workspace, int repetitions)
{
    if (auto started = workspace.start(); !started)
        failBench(started.error().message);
    timedExec(workspace, "exec true"); // booted, session open
    measureTree(workspace, "minimal /root", repetitions);
    addFiles(workspace, 2000, "small");
    measureTree(workspace, "+2,000 files", repetitions);
    addFiles(workspace, 13000, "large");
    measureTree(workspace, "+15,000 files", repetitions);
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 9;
    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "bench_file_changes: %s\n", qPrintable(opened.error().message));
        return 1;
    }
    std::printf("median of %d, %s; a 512 MiB workspace of the minimal image, commands over its open session\n",
                repetitions, qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    return sbw::test::measureOnNewWorkspace(connection, QStringLiteral("bench-changes"), "bench_file_changes",
                                            [&](sbw::Workspace& workspace) { measure(workspace, repetitions); });
}
