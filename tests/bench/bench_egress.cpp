// The allowlist network's egress proxy versus `nat`: download throughput and the latency the
// proxy adds to one small request, in the same run, from the same HTTP server.
//
// One Python http.server on the host's 127.0.0.1 (LoopbackHttpServers) serves a 50 MB file and a
// 1 kB page. Two workspaces of 384 MiB fetch them, one after the other (on 2 cores under TCG a
// second running guest would take CPU from the measured one):
//   - allowlist: through the egress proxy (http://127.0.0.1:3128 in the guest, a forward over the
//     SSH session, EgressProxy on this process's threads), a rule allowing 127.0.0.1 on the
//     server's port, set up as tests/integration/tst_egress.cpp does;
//   - nat: straight to 10.0.2.2, which QEMU's user-mode network maps to the host's loopback.
// Python's urllib times each fetch in the guest (a new connection each, the body read to
// nowhere), so neither the exec and its SSH round trips nor Python's start are counted:
//   - throughput: the 50 MB file, median of N downloads, MB/s; target proxy/nat at least 70 %;
//   - latency: a GET of the page, median of N rounds of 20 (after one untimed GET), ms; target:
//     the proxy adds at most 20 ms.
//
//   QT_NO_GLIB=1 flock /tmp/sbw-guest.lock build/tests/bench/bench_egress [N]   (default 3)

#include "BenchStats.h"
#include "BenchWorkspace.h"
#include "LoopbackHttpServer.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "approval/PolicyGate.h"
#include "egress/EgressProxy.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "log/CommandLog.h"
#include "network/GuestEgress.h"
#include "workspace/Workspace.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

using namespace sbw;
using test::failBench;

constexpr qint64 kDownloadBytes = 50'000'000;
constexpr qint64 kPageBytes = 1000;
constexpr int kGetsPerRound = 20;

/// Fetches URL COUNT times through PROXY ("direct": none) and prints "BYTES MS" for each. The
/// handler is explicit so that NO_PROXY (127.0.0.1 goes direct) and the proxy variables of an
/// allowlist workspace's commands do not decide the path; the caller unsets NO_PROXY too,
/// which urllib consults even then.
const char* const kFetchScript = R"(import sys, time, urllib.request
proxy, url, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({} if proxy == 'direct' else {'http': proxy}))
for _ in range(count):
    start = time.monotonic()
    size = 0
    with opener.open(url, timeout=600) as reply:
        while chunk := reply.read(1 << 20):
            size += len(chunk)
    print(size, (time.monotonic() - start) * 1000)
)";

/// How a guest reaches the host's server: the proxy URL ("direct" for none) and the host.
struct Route
{
    QString proxy;
    QString host;
};

struct Figures
{
    double downloadMs = -1; ///< median time of one 50 MB download
    double getMs = -1;      ///< median time of one small GET
};

/// `command` in the guest on a worker thread while this thread's event loop turns: the proxy
/// asks the gate on this thread, so a wait that slept in between would add to every request.
QByteArray inGuest(Workspace& ws, const QString& command)
{
    QEventLoop loop;
    QByteArray output;
    std::thread worker([&] {
        output = test::shellOutput(ws, command);
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
    return output;
}

/// The guest's times in ms of `count` fetches of `path`, each checked to bring `bytes`.
std::vector<double> timeFetches(Workspace& ws, const Route& route, quint16 port, const QString& path,
                                int count, qint64 bytes)
{
    const QString url = QStringLiteral("http://%1:%2/%3").arg(route.host).arg(port).arg(path);
    const QByteArray output = inGuest(
        ws, QStringLiteral("env -u NO_PROXY -u no_proxy python3 -c \"$(cat <<'EOF'\n%1EOF\n)\" %2 %3 %4")
                .arg(QString::fromUtf8(kFetchScript), route.proxy, url)
                .arg(count));
    std::vector<double> times;
    for (const QByteArray& line : output.trimmed().split('\n')) {
        const QList<QByteArray> fields = line.split(' ');
        if (fields.size() != 2 || fields[0].toLongLong() != bytes)
            break;
        times.push_back(fields[1].toDouble());
    }
    if (int(times.size()) != count)
        failBench(QStringLiteral("fetching %1 in the guest: %2").arg(url, QString::fromUtf8(output)));
    return times;
}

/// Boots `ws` and measures both figures on it along `route`.
Figures measure(Workspace& ws, const Route& route, quint16 port, int repetitions)
{
    if (!ws.start().ok())
        failBench(QStringLiteral("workspace %1 did not start").arg(ws.record().name));
    // Untimed: the first GET waits for the guest's boot and the session (and its forward).
    timeFetches(ws, route, port, QStringLiteral("page.txt"), 1, kPageBytes);
    Figures figures;
    figures.downloadMs =
        test::median(timeFetches(ws, route, port, QStringLiteral("download.bin"), repetitions, kDownloadBytes));
    std::vector<double> rounds;
    for (int i = 0; i < repetitions; ++i)
        rounds.push_back(test::median(
            timeFetches(ws, route, port, QStringLiteral("page.txt"), kGetsPerRound, kPageBytes)));
    figures.getMs = test::median(rounds);
    return figures;
}

bool writeFile(const QString& path, qint64 bytes)
{
    // Random bytes: nothing on the way (SSH, HTTP) can make them smaller.
    QByteArray data(bytes, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32*>(data.data()), bytes / 4);
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(data) == bytes;
}

void printFigures(const char* network, const Figures& figures)
{
    std::printf("  %-9s  download %8.2f MB/s (%7.0f ms)   small GET %7.2f ms\n", network,
                test::mbPerSecond(kDownloadBytes, qRound64(figures.downloadMs)), figures.downloadMs,
                figures.getMs);
    std::fflush(stdout);
}

WorkspaceSettings benchSettings(WorkspaceNetwork network)
{
    WorkspaceSettings settings;
    settings.memoryMiB = 384;
    settings.network = network;
    return settings;
}

/// An allowlist workspace through the egress proxy, a rule allowing the server's port.
int measureProxy(HypervisorConnection& connection, PolicyGate& gate, quint16 port, int repetitions,
                 Figures* figures)
{
    const Route route{QStringLiteral("http://127.0.0.1:%1").arg(guest_egress::kGuestPort),
                      QStringLiteral("127.0.0.1")};
    return test::measureOnNewWorkspace(connection, QStringLiteral("bench-egress-proxy"),
                                       benchSettings(WorkspaceNetwork::Allowlist), "bench_egress", [&](Workspace& ws) {
        Policy policy;
        policy.workspaceRules[ws.record().name] = {
            test::networkRule(QStringLiteral("127.0.0.1"), {port}, PolicyDecision::Allow)};
        gate.setPolicy(policy);
        *figures = measure(ws, route, port, repetitions);
        printFigures("proxy", *figures);
    });
}

/// A nat workspace straight to the host's loopback.
int measureNat(HypervisorConnection& connection, quint16 port, int repetitions, Figures* figures)
{
    const Route route{QStringLiteral("direct"), QStringLiteral("10.0.2.2")};
    return test::measureOnNewWorkspace(connection, QStringLiteral("bench-egress-nat"),
                                       benchSettings(WorkspaceNetwork::Nat), "bench_egress", [&](Workspace& ws) {
        *figures = measure(ws, route, port, repetitions);
        printFigures("nat", *figures);
    });
}

} // namespace

int main(int argc, char* argv[])
{
    LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 3;

    QTemporaryDir site;
    QTemporaryDir data;
    test::LoopbackHttpServers servers;
    if (!writeFile(site.filePath(QStringLiteral("download.bin")), kDownloadBytes) ||
        !writeFile(site.filePath(QStringLiteral("page.txt")), kPageBytes)) {
        std::fprintf(stderr, "bench_egress: cannot write the files to serve in %s\n", qPrintable(site.path()));
        return 1;
    }
    const quint16 port = servers.start(site.path());
    auto log = CommandLog::open(data.filePath(QStringLiteral("log.sqlite")));
    if (!port || !log) {
        std::fprintf(stderr, "bench_egress: the HTTP server or the command log did not start\n");
        return 1;
    }
    PolicyGate gate(Policy{}, log.value());
    EgressProxy proxy(&gate, log.value());
    proxy.acceptGuestConnections();

    HypervisorConnection connection(test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
        return 1;
    }
    std::printf("%s; 50 MB download median of %d, small GET median of %d rounds of %d; timed in the guest\n",
                qPrintable(HypervisorConnection::describe(connection.accelerator())), repetitions,
                repetitions, kGetsPerRound);

    Figures viaProxy;
    Figures viaNat;
    int status = measureProxy(connection, gate, port, repetitions, &viaProxy);
    status |= measureNat(connection, port, repetitions, &viaNat);
    if (status != 0)
        return status;

    const double proxyRate = test::mbPerSecond(kDownloadBytes, qRound64(viaProxy.downloadMs));
    const double natRate = test::mbPerSecond(kDownloadBytes, qRound64(viaNat.downloadMs));
    std::printf("  download proxy/nat: %.1f %% (target >= 70 %%)\n", natRate > 0 ? 100.0 * proxyRate / natRate : 0.0);
    std::printf("  small GET added by the proxy: %.2f ms (target <= 20 ms)\n", viaProxy.getMs - viaNat.getMs);
    return 0;
}
