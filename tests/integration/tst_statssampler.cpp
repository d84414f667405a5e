// The stats sampler against one real 2-vCPU microVM, booted once for all cases: idle and busy
// CPU figures, memory rising with a guest allocation, a paused sandbox marked without errors.

#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "sandbox/Sandbox.h"
#include "stats/StatsSampler.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <libvirt/libvirt.h>
#include <unistd.h>

using namespace std::chrono_literals;

class TestStatsSampler : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox;
    std::unique_ptr<sbw::StatsSampler> m_sampler;
    std::unique_ptr<QSignalSpy> m_failures;
    QString m_uuid;

    void exec(const QByteArray& command)
    {
        sbw::ExecRequest request;
        request.command = command;
        request.timeout = 60s;
        auto status = m_sandbox->session().exec(request);
        QVERIFY2(status.ok(), status ? "" : qPrintable(status.error().message));
        QCOMPARE(status->exitStatus, std::optional<int>(0));
    }

    /// This sandbox's samples of the next `count` ticks.
    QList<sbw::SandboxSample> nextSamples(int count)
    {
        QSignalSpy ticks(m_sampler.get(), &sbw::StatsSampler::sampled);
        QList<sbw::SandboxSample> samples;
        while (ticks.size() < count && ticks.wait(5000)) {
        }
        for (const QList<QVariant>& args : std::as_const(ticks)) {
            const auto tick = args.constFirst().value<sbw::StatsTick>();
            for (const sbw::SandboxSample& s : tick.sandboxes)
                if (s.uuid == m_uuid)
                    samples.append(s);
        }
        return samples;
    }

    static QString describe(const QList<sbw::SandboxSample>& samples)
    {
        QStringList out;
        for (const auto& s : samples)
            out << QStringLiteral("%1 cpu=%2 mem=%3")
                       .arg(sbw::domainStateName(s.state))
                       .arg(s.cpuPercent ? QString::number(*s.cpuPercent, 'f', 1)
                                         : QStringLiteral("-"))
                       .arg(s.memoryUsedMiB ? QString::number(*s.memoryUsedMiB, 'f', 1)
                                            : QStringLiteral("-"));
        return out.join(QStringLiteral("; "));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        sbw::SandboxOptions options;
        options.vcpus = 2;
        auto sandbox = sbw::Sandbox::start(*m_connection, options);
        QVERIFY2(sandbox.ok(), sandbox ? "" : qPrintable(sandbox.error().message));
        m_sandbox = std::move(sandbox.value());
        auto ready = m_sandbox->waitReady(nullptr);
        QVERIFY2(ready.ok(), ready ? "" : qPrintable(ready.error().message));

        m_sampler = std::make_unique<sbw::StatsSampler>(m_connection.get());
        m_failures =
            std::make_unique<QSignalSpy>(m_sampler.get(), &sbw::StatsSampler::samplingFailed);
        QSignalSpy ticks(m_sampler.get(), &sbw::StatsSampler::sampled);
        m_sampler->start();
        QVERIFY(ticks.wait(5000));
        for (const auto& s : ticks.constFirst().constFirst().value<sbw::StatsTick>().sandboxes)
            if (s.name == m_sandbox->domainName())
                m_uuid = s.uuid;
        QVERIFY2(!m_uuid.isEmpty(), "the sampler did not report the sandbox");
    }

    void idleGuestIsBelowTwentyPercent()
    {
        const QList<sbw::SandboxSample> samples = nextSamples(4).mid(1);
        QCOMPARE(samples.size(), 3);
        for (const auto& s : samples) {
            QCOMPARE(s.state, sbw::DomainState::Running);
            QCOMPARE(s.vcpus, 2);
            QVERIFY2(s.cpuPercent && *s.cpuPercent < 20, qPrintable(describe(samples)));
        }
    }

    /// CPU seconds the domain's QEMU process has used (utime + stime of /proc/PID/stat), read
    /// on the host beside libvirt: the reference the sampler's figure is checked against.
    double qemuCpuSeconds() const
    {
        const QByteArray tag = "guest=" + m_sandbox->domainName().toUtf8() + ',';
        for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
            if (!cmdline.open(QIODevice::ReadOnly) || !cmdline.readAll().contains(tag))
                continue;
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            if (!stat.open(QIODevice::ReadOnly))
                return -1;
            const QByteArray line = stat.readAll();
            // Fields after the command's closing parenthesis: utime and stime are 14 and 15.
            const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
            return (fields.value(11).toDouble() + fields.value(12).toDouble()) /
                   double(sysconf(_SC_CLK_TCK));
        }
        return -1;
    }

    /// Two busy loops on 2 vCPUs: the sampler reads what the host gave the guest, which is
    /// its QEMU process's CPU time over the same ticks (all of two cores on an idle host,
    /// less when something else competes).
    void twoBusyLoopsReadTheCpuTheHostGaveThem()
    {
        sbw::ExecRequest nproc;
        nproc.command = "exec nproc";
        QByteArray cpus;
        nproc.onStdout = [&](QByteArrayView bytes) { cpus.append(bytes); };
        QVERIFY(m_sandbox->session().exec(nproc).ok());
        QCOMPARE(cpus, QByteArray("2\n"));
        exec("yes >/dev/null 2>&1 </dev/null & yes >/dev/null 2>&1 </dev/null & exit 0");
        // A few ticks to settle, then three consecutive readings, with the QEMU process's CPU
        // time read at their start and end.
        nextSamples(3);
        QElapsedTimer wall;
        wall.start();
        const double cpuBefore = qemuCpuSeconds();
        const QList<sbw::SandboxSample> samples = nextSamples(3);
        const double cpuAfter = qemuCpuSeconds();
        const double seconds = double(wall.elapsed()) / 1000.0;
        exec("pkill yes; exit 0");
        QCOMPARE(samples.size(), 3);
        QVERIFY(cpuBefore >= 0 && cpuAfter >= cpuBefore);
        double sum = 0;
        for (const auto& s : samples) {
            QVERIFY2(s.cpuPercent, qPrintable(describe(samples)));
            QVERIFY2(*s.cpuPercent <= 100.0, qPrintable(describe(samples)));
            sum += *s.cpuPercent;
        }
        // QEMU's own threads (I/O, the main loop) add a little to what the vCPUs used.
        const double reference = 100.0 * (cpuAfter - cpuBefore) / seconds / 2;
        const QString seen = describe(samples) + QStringLiteral("; QEMU process: %1 %")
                                                     .arg(reference, 0, 'f', 1);
        QVERIFY2(sum / 3 >= 20.0, qPrintable(seen)); // the loops ran
        QVERIFY2(std::abs(sum / 3 - reference) <= 15.0, qPrintable(seen));
    }

    void memoryRisesWithAHundredMebibyteAllocation()
    {
        const QList<sbw::SandboxSample> before = nextSamples(3);
        QVERIFY2(!before.isEmpty() && before.constLast().memoryUsedMiB,
                 qPrintable(describe(before)));
        const double baseline = *before.constLast().memoryUsedMiB;
        exec("python3 -c 'b=bytearray(100<<20); import time; time.sleep(30)' >/dev/null 2>&1 "
             "</dev/null & exit 0");
        const QList<sbw::SandboxSample> after = nextSamples(8);
        exec("pkill -f 'bytearra[y]'; exit 0");
        double peak = 0;
        for (const auto& s : after)
            peak = std::max(peak, s.memoryUsedMiB.value_or(0));
        QVERIFY2(
            peak - baseline >= 80.0,
            qPrintable(
                QStringLiteral("baseline %1 MiB; after: %2").arg(baseline).arg(describe(after))));
    }

    void pausedSandboxIsMarkedWithoutErrors()
    {
        virDomainPtr domain = virDomainLookupByName(m_connection->handle(),
                                                    m_sandbox->domainName().toUtf8().constData());
        QVERIFY(domain);
        QCOMPARE(virDomainSuspend(domain), 0);
        // The first tick may have been taken before the suspend and still be queued.
        const QList<sbw::SandboxSample> samples = nextSamples(4).mid(1);
        QCOMPARE(virDomainResume(domain), 0);
        virDomainFree(domain);
        QCOMPARE(samples.size(), 3);
        for (const auto& s : samples) {
            QCOMPARE(s.state, sbw::DomainState::Paused);
            QCOMPARE(s.cpuPercent, std::nullopt);
        }
        QCOMPARE(m_failures->size(), 0);
        QVERIFY(m_sampler->history(m_uuid).size() >= 10);
        // Running again: CPU figures come back after one tick.
        const QList<sbw::SandboxSample> resumed = nextSamples(3);
        QVERIFY2(resumed.constLast().cpuPercent.has_value(), qPrintable(describe(resumed)));
        exec("exit 0");
    }

    void cliPrintsTheSandbox()
    {
        QProcess json;
        json.start(QStringLiteral(SBW_CLI_PATH),
                   {QStringLiteral("stats"), QStringLiteral("--json"), QStringLiteral("--connect"),
                    m_connection->uri()});
        QVERIFY(json.waitForFinished(20000));
        QCOMPARE(json.exitCode(), 0);
        const QList<QByteArray> lines = json.readAllStandardOutput().split('\n');
        QCOMPARE(lines.size(), 2); // one object, one newline
        const QJsonObject tick = QJsonDocument::fromJson(lines.constFirst()).object();
        QVERIFY(tick.value("host").toObject().value("memory_total_mib").toDouble() > 0);
        QJsonObject ours;
        for (const QJsonValue& sandbox : tick.value("sandboxes").toArray())
            if (sandbox.toObject().value("name").toString() == m_sandbox->domainName())
                ours = sandbox.toObject();
        QCOMPARE(ours.value("uuid").toString(), m_uuid);
        QCOMPARE(ours.value("state").toString(), QStringLiteral("running"));
        QCOMPARE(ours.value("vcpus").toInt(), 2);
        const double cpu = ours.value("cpu_percent").toDouble(-1);
        QVERIFY2(cpu >= 0 && cpu <= 100, qPrintable(QString::number(cpu)));
        QVERIFY(ours.value("memory_used_mib").toDouble() > 10);
        // What its QEMU process holds on the host; the host's figure sums every sandbox's.
        const double resident = ours.value("resident_mib").toDouble();
        QVERIFY2(resident > 20, qPrintable(QString::number(resident)));
        QVERIFY(tick.value("host").toObject().value("sandboxes_resident_mib").toDouble() >= qRound(resident * 10) / 10.0 - 0.1);
        QVERIFY(ours.value("disk_write_bytes_per_sec").isDouble());
        QVERIFY(ours.value("net_rx_bytes_per_sec").isNull()); // no NIC at all

        QProcess table;
        table.start(QStringLiteral(SBW_CLI_PATH),
                    {QStringLiteral("stats"), QStringLiteral("--connect"), m_connection->uri()});
        QVERIFY(table.waitForFinished(20000));
        QCOMPARE(table.exitCode(), 0);
        const QStringList rows =
            QString::fromUtf8(table.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        QVERIFY2(rows.constFirst().startsWith(QLatin1String("NAME")), qPrintable(rows.join('\n')));
        QVERIFY(rows.constLast().startsWith(QLatin1String("(host)")));
        const auto row = std::find_if(rows.begin(), rows.end(), [this](const QString& r) {
            return r.startsWith(m_sandbox->domainName());
        });
        QVERIFY2(row != rows.end(), qPrintable(rows.join('\n')));
        QCOMPARE(row->split(' ', Qt::SkipEmptyParts).value(1), QStringLiteral("running"));
    }

    void cleanupTestCase()
    {
        m_sampler.reset();
        m_sandbox.reset();
    }
};

QTEST_GUILESS_MAIN(TestStatsSampler)
#include "tst_statssampler.moc"
