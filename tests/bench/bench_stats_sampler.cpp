// CPU time the stats sampler spends per tick with 1, 10 and 30 sandboxes.
//
// Sandboxes: real transient QEMU domains carrying the workbench's <metadata>, started paused
// (VIR_DOMAIN_START_PAUSED, AUTODESTROY) with no disk or kernel, so 30 of them cost the host
// no guest CPU; the stats call still asks each QEMU for its balloon and block figures. Per
// size: 20 ticks of the sampler's work (StatsCollector::collect() plus the history append,
// after two warm-up ticks so the per-domain metadata lookups are cached) against the
// baseline of 20 bare virConnectGetAllDomainStats calls with the same groups. Reported per
// tick: CPU time of the calling thread and of the whole process (getrusage, includes libvirt's
// event-loop thread), wall time, the libvirt daemon's CPU time (/proc, for reference), and the
// sampler's share of one core at 1 s ticks against the target of 2 %.
//
//   build/tests/bench/bench_stats_sampler [max-domains (default 30)]

#include "TestEnvironment.h"
#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "hypervisor/VirtError.h"
#include "stats/StatsCollector.h"
#include "stats/StatsHistory.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QThread>
#include <cstdio>
#include <ctime>
#include <functional>
#include <libvirt/libvirt.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kTicks = 20;
constexpr double kTargetPercent = 2.0;

qint64 nowUs(clockid_t clock)
{
    timespec ts = {};
    clock_gettime(clock, &ts);
    return qint64(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

qint64 processCpuUs()
{
    rusage usage = {};
    getrusage(RUSAGE_SELF, &usage);
    return (qint64(usage.ru_utime.tv_sec) + usage.ru_stime.tv_sec) * 1'000'000 +
           usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

/// utime + stime of the libvirt daemon in µs, or -1 when it is not local.
qint64 daemonCpuUs()
{
    for (const char* name : {"virtqemud", "libvirtd"}) {
        QProcess pidof;
        pidof.start(QStringLiteral("pidof"), {QString::fromLatin1(name)});
        pidof.waitForFinished();
        const QByteArray pid = pidof.readAllStandardOutput().trimmed().split(' ').value(0);
        if (pid.isEmpty())
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(QString::fromLatin1(pid)));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        const qint64 ticks = fields.value(11).toLongLong() + fields.value(12).toLongLong();
        return ticks * 1'000'000 / sysconf(_SC_CLK_TCK);
    }
    return -1;
}

struct Cost
{
    double threadUs = 0;
    double processUs = 0;
    double wallUs = 0;
    double daemonUs = 0;
};

Cost measure(const std::function<void()>& tick)
{
    const qint64 daemon0 = daemonCpuUs();
    const qint64 thread0 = nowUs(CLOCK_THREAD_CPUTIME_ID);
    const qint64 process0 = processCpuUs();
    qint64 wall = 0;
    for (int i = 0; i < kTicks; ++i) {
        const qint64 start = nowUs(CLOCK_MONOTONIC);
        tick();
        wall += nowUs(CLOCK_MONOTONIC) - start;
        QThread::msleep(100);
    }
    Cost cost;
    cost.threadUs = double(nowUs(CLOCK_THREAD_CPUTIME_ID) - thread0) / kTicks;
    cost.processUs = double(processCpuUs() - process0) / kTicks;
    cost.wallUs = double(wall) / kTicks;
    cost.daemonUs = daemon0 < 0 ? -1 : double(daemonCpuUs() - daemon0) / kTicks;
    return cost;
}

QByteArray benchDomainXml(int index)
{
    return QStringLiteral(
               "<domain type='qemu'><name>sbw-bench-%1-%2</name><memory unit='MiB'>64</memory>"
               "<vcpu>1</vcpu><metadata><sbw:sandbox xmlns:sbw='%3'><sbw:kind>ephemeral</sbw:kind>"
               "</sbw:sandbox></metadata><os><type arch='x86_64' machine='q35'>hvm</type></os>"
               "<features><tcg><tb-cache unit='MiB'>8</tb-cache></tcg></features>"
               "<devices><controller type='usb' model='none'/><memballoon model='virtio'>"
               "<stats period='1'/></memballoon></devices></domain>")
        .arg(getpid())
        .arg(index)
        .arg(QLatin1String(sbw::kMetadataNamespace))
        .toUtf8();
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    sbw::silenceLibvirtErrorPrinting();
    const int maxDomains = argc > 1 ? std::atoi(argv[1]) : 30;

    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
        return 1;
    }
    virConnectPtr conn = connection.handle();
    std::printf("stats sampler cost per tick, %s, %d ticks each, ticks 100 ms apart\n",
                qPrintable(connection.uri()), kTicks);
    std::printf("%8s | %28s | %28s | %12s | %9s | %12s\n", "domains", "bare call µs thread/process",
                "sampler µs thread/process", "sampler wall", "daemon µs", "% of 1 core");

    std::vector<virDomainPtr> domains;
    int status = 0;
    for (const int size : {1, 10, 30}) {
        if (size > maxDomains)
            break;
        while (int(domains.size()) < size) {
            const QByteArray xml = benchDomainXml(int(domains.size()));
            virDomainPtr domain = virDomainCreateXML(
                conn, xml.constData(), VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
            if (!domain) {
                std::fprintf(stderr, "cannot start a bench domain: %s\n",
                             qPrintable(sbw::lastVirtErrorMessage()));
                status = 1;
                break;
            }
            domains.push_back(domain);
        }
        if (status)
            break;

        const Cost bare = measure([conn] {
            virDomainStatsRecordPtr* records = nullptr;
            const int count = virConnectGetAllDomainStats(
                conn,
                VIR_DOMAIN_STATS_STATE | VIR_DOMAIN_STATS_CPU_TOTAL | VIR_DOMAIN_STATS_BALLOON |
                    VIR_DOMAIN_STATS_BLOCK | VIR_DOMAIN_STATS_INTERFACE,
                &records, VIR_CONNECT_GET_ALL_DOMAINS_STATS_NOWAIT);
            if (count >= 0)
                virDomainStatsRecordListFree(records);
        });
        sbw::StatsCollector collector;
        sbw::StatsHistory history(900);
        int reported = -1;
        const auto tick = [&] {
            auto sampled = collector.collect(conn);
            if (sampled) {
                reported = int(sampled->sandboxes.size());
                history.append(sampled.value());
            }
        };
        tick();
        tick();
        const Cost sampler = measure(tick);
        if (reported < size) {
            std::fprintf(stderr, "the sampler reported %d sandboxes, expected at least %d\n",
                         reported, size);
            status = 1;
        }
        const double percent = sampler.processUs / 1e6 * 100.0;
        std::printf("%8d | %13.0f / %12.0f | %13.0f / %12.0f | %9.1f ms | %9.0f | %5.3f %% (%.2fx "
                    "target, %.2fx bare)\n",
                    size, bare.threadUs, bare.processUs, sampler.threadUs, sampler.processUs,
                    sampler.wallUs / 1000.0, sampler.daemonUs, percent, percent / kTargetPercent,
                    sampler.processUs / std::max(bare.processUs, 1.0));
        std::fflush(stdout);
    }
    for (virDomainPtr domain : domains) {
        virDomainDestroy(domain);
        virDomainFree(domain);
    }
    return status;
}
