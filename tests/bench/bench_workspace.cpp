// Workspace lifecycle latencies versus plain virsh on the same domain.
//
// For a 256 MiB and a 1 GiB workspace (created, booted and deleted by the program): pause,
// resume, hibernate, wake and checkpoint through Workspace (resume and wake include setting the
// guest clock through the agent), then `virsh suspend`, `resume`, `managedsave`, `start` and
// `snapshot-create-as` on the very same domain. Prints the median of N repetitions (default 3)
// in milliseconds. Run under `flock /tmp/sbw-guest.lock`.

#include "BenchSetup.h"
#include "BenchStats.h"
#include "TestEnvironment.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "workspace/Workspace.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QThread>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

using sbw::test::median;

qint64 timeMs(const std::function<bool()>& step)
{
    QElapsedTimer timer;
    timer.start();
    return step() ? timer.elapsed() : -1;
}

bool virsh(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral("virsh"),
                  QStringList{QStringLiteral("-q"), QStringLiteral("-c"), sbw::test::guestUri()} +
                      arguments);
    return process.waitForFinished(300000) && process.exitCode() == 0;
}

bool waitReady(sbw::Workspace& ws)
{
    sbw::ExecRequest request;
    request.command = "exec true";
    auto status = ws.exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(180));
    ws.closeSession();
    return status.ok();
}

void benchSize(sbw::HypervisorConnection& connection, int memoryMiB, int repetitions)
{
    const QString name = QStringLiteral("bench-%1").arg(memoryMiB);
    if (auto old = sbw::Workspace::open(connection, name))
        old.value()->remove();
    sbw::WorkspaceSettings settings;
    settings.memoryMiB = memoryMiB;
    auto created = sbw::Workspace::create(connection, name, settings);
    if (!created) {
        std::fprintf(stderr, "%s\n", qPrintable(created.error().message));
        return;
    }
    sbw::Workspace& ws = *created.value();
    if (!ws.start().ok() || !waitReady(ws)) {
        std::fprintf(stderr, "workspace %s did not boot\n", qPrintable(name));
        ws.remove();
        return;
    }
    const QString domain = ws.record().domainName;
    std::vector<qint64> pause, resume, hibernate, wake, checkpoint;
    std::vector<qint64> vPause, vResume, vSave, vStart, vSnapshot;
    for (int i = 0; i < repetitions; ++i) {
        pause.push_back(timeMs([&] { return ws.pause().ok(); }));
        resume.push_back(timeMs([&] { return ws.resume().ok(); }));
        hibernate.push_back(timeMs([&] { return ws.hibernate().ok(); }));
        wake.push_back(timeMs([&] { return ws.wake().ok(); }));
        checkpoint.push_back(
            timeMs([&] { return ws.checkpoint(QStringLiteral("c%1").arg(i), QString()).ok(); }));
        vPause.push_back(timeMs([&] { return virsh({QStringLiteral("suspend"), domain}); }));
        vResume.push_back(timeMs([&] { return virsh({QStringLiteral("resume"), domain}); }));
        vSave.push_back(timeMs([&] { return virsh({QStringLiteral("managedsave"), domain}); }));
        vStart.push_back(timeMs([&] { return virsh({QStringLiteral("start"), domain}); }));
        vSnapshot.push_back(timeMs([&] {
            return virsh(
                {QStringLiteral("snapshot-create-as"), domain, QStringLiteral("v%1").arg(i)});
        }));
        // Untimed: the next round starts once the guest agent is back (state "running").
        for (int tries = 0; tries < 200 && ws.state() != sbw::WorkspaceState::Running; ++tries)
            QThread::msleep(100);
    }
    std::printf(
        "%5d MiB  pause %5lld (virsh %5lld)  resume %5lld (%5lld)  hibernate %5lld (%5lld)  "
        "wake %5lld (%5lld)  checkpoint %5lld (%5lld) ms\n",
        memoryMiB, median(pause), median(vPause), median(resume), median(vResume),
        median(hibernate), median(vSave), median(wake), median(vStart), median(checkpoint),
        median(vSnapshot));
    std::fflush(stdout);
    if (auto removed = ws.remove(); !removed)
        std::fprintf(stderr, "%s\n", qPrintable(removed.error().message));
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
    std::printf("median of %d, %s; resume and wake include setting the guest clock\n", repetitions,
                qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    for (int memory : {256, 1024})
        benchSize(connection, memory, repetitions);
    return 0;
}
