#include "stats/StatsCounters.h"

#include <QTest>
#include <libvirt/libvirt.h>

// The sampler's arithmetic on hand-built virConnectGetAllDomainStats records: parsing, CPU
// normalisation and clamping, byte rates, counter resets, paused domains, host figures.
namespace {

constexpr qint64 kSecond = 1'000'000'000;

/// A stats record's typed parameters, built with libvirt's own helpers.
class Record
{
public:
    Record& state(int value)
    {
        virTypedParamsAddInt(&m_params, &m_count, &m_max, "state.state", value);
        return *this;
    }
    Record& reason(int value)
    {
        virTypedParamsAddInt(&m_params, &m_count, &m_max, "state.reason", value);
        return *this;
    }
    Record& ull(const char* field, unsigned long long value)
    {
        virTypedParamsAddULLong(&m_params, &m_count, &m_max, field, value);
        return *this;
    }
    ~Record() { virTypedParamsFree(m_params, m_count); }
    sbw::DomainCounters parse() const { return sbw::parseDomainCounters(m_params, m_count); }

private:
    virTypedParameterPtr m_params = nullptr;
    int m_count = 0;
    int m_max = 0;
};

sbw::DomainCounters running(quint64 cpuNs)
{
    return Record().state(VIR_DOMAIN_RUNNING).ull("cpu.time", cpuNs).parse();
}

} // namespace

class TestStatsCounters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The typed-parameter helpers use libvirt's per-thread error state, set up here.
    void initTestCase() { QCOMPARE(virInitialize(), 0); }

    void parsesAndSumsIndexedFields()
    {
        const sbw::DomainCounters c = Record()
                                          .state(VIR_DOMAIN_PAUSED)
                                          .ull("cpu.time", 123)
                                          .ull("balloon.available", 500 * 1024)
                                          .ull("balloon.unused", 380 * 1024)
                                          .ull("balloon.rss", 210 * 1024)
                                          .ull("block.0.rd.bytes", 1000)
                                          .ull("block.1.rd.bytes", 24)
                                          .ull("block.0.wr.bytes", 7)
                                          .ull("block.0.rd.reqs", 99999)
                                          .ull("block.count", 2)
                                          .ull("net.0.rx.bytes", 5)
                                          .ull("net.0.tx.bytes", 6)
                                          .parse();
        QCOMPARE(c.state, int(VIR_DOMAIN_PAUSED));
        QCOMPARE(c.cpuTimeNs, std::optional<quint64>(123));
        QCOMPARE(c.balloonAvailableKiB, std::optional<quint64>(500 * 1024));
        QCOMPARE(c.balloonUnusedKiB, std::optional<quint64>(380 * 1024));
        QCOMPARE(c.balloonRssKiB, std::optional<quint64>(210 * 1024));
        QCOMPARE(sbw::sandboxSample(nullptr, c, 0, 1).residentMiB, std::optional<double>(210.0));
        QCOMPARE(c.diskReadBytes, std::optional<quint64>(1024));
        QCOMPARE(c.diskWriteBytes, std::optional<quint64>(7));
        QCOMPARE(c.netRxBytes, std::optional<quint64>(5));
        QCOMPARE(c.netTxBytes, std::optional<quint64>(6));
    }

    void missingFieldsStayEmpty()
    {
        const sbw::DomainCounters c =
            Record().state(VIR_DOMAIN_SHUTOFF).reason(VIR_DOMAIN_SHUTOFF_CRASHED).parse();
        QCOMPARE(c.state, int(VIR_DOMAIN_SHUTOFF));
        QCOMPARE(c.reason, int(VIR_DOMAIN_SHUTOFF_CRASHED));
        QCOMPARE(c.cpuTimeNs, std::nullopt);
        QCOMPARE(c.diskReadBytes, std::nullopt);
        const sbw::SandboxSample s = sbw::sandboxSample(&c, c, kSecond, 1);
        QCOMPARE(s.cpuPercent, std::nullopt);
        QCOMPARE(s.memoryUsedMiB, std::nullopt);
        QCOMPARE(s.diskReadBytesPerSec, std::nullopt);
        QCOMPARE(s.netRxBytesPerSec, std::nullopt);
    }

    void cpuIsNormalisedToVcpus_data()
    {
        QTest::addColumn<quint64>("cpuDeltaNs");
        QTest::addColumn<qint64>("elapsedNs");
        QTest::addColumn<int>("vcpus");
        QTest::addColumn<double>("percent");
        QTest::newRow("one vCPU half busy") << quint64(kSecond / 2) << kSecond << 1 << 50.0;
        QTest::newRow("two vCPUs one busy") << quint64(kSecond) << kSecond << 2 << 50.0;
        QTest::newRow("two vCPUs both busy over 2 s")
            << quint64(4 * kSecond) << 2 * kSecond << 2 << 100.0;
        QTest::newRow("QEMU threads beyond allocation clamp")
            << quint64(3 * kSecond) << kSecond << 2 << 100.0;
        QTest::newRow("idle") << quint64(0) << kSecond << 4 << 0.0;
        QTest::newRow("zero vCPUs counts as one") << quint64(kSecond / 4) << kSecond << 0 << 25.0;
    }

    void cpuIsNormalisedToVcpus()
    {
        QFETCH(quint64, cpuDeltaNs);
        QFETCH(qint64, elapsedNs);
        QFETCH(int, vcpus);
        QFETCH(double, percent);
        const sbw::DomainCounters before = running(10 * kSecond);
        const sbw::DomainCounters after = running(10 * kSecond + cpuDeltaNs);
        const sbw::SandboxSample s = sbw::sandboxSample(&before, after, elapsedNs, vcpus);
        QVERIFY(s.cpuPercent.has_value());
        QCOMPARE(*s.cpuPercent, percent);
    }

    void firstSampleHasNoRates()
    {
        const sbw::DomainCounters c = Record()
                                          .state(VIR_DOMAIN_RUNNING)
                                          .ull("cpu.time", kSecond)
                                          .ull("block.0.rd.bytes", 4096)
                                          .ull("balloon.available", 1024)
                                          .ull("balloon.unused", 0)
                                          .parse();
        const sbw::SandboxSample s = sbw::sandboxSample(nullptr, c, 0, 1);
        QCOMPARE(s.cpuPercent, std::nullopt);
        QCOMPARE(s.diskReadBytesPerSec, std::nullopt);
        QCOMPARE(s.memoryUsedMiB, std::optional<double>(1.0)); // a level, not a rate
    }

    void counterResetGivesNoRateNotNegative()
    {
        // The domain was restarted between two ticks: every counter starts again from zero.
        const sbw::DomainCounters before = Record()
                                               .state(VIR_DOMAIN_RUNNING)
                                               .ull("cpu.time", 50 * kSecond)
                                               .ull("block.0.wr.bytes", 1 << 20)
                                               .parse();
        const sbw::DomainCounters after = Record()
                                              .state(VIR_DOMAIN_RUNNING)
                                              .ull("cpu.time", kSecond / 10)
                                              .ull("block.0.wr.bytes", 512)
                                              .parse();
        const sbw::SandboxSample s = sbw::sandboxSample(&before, after, kSecond, 1);
        QCOMPARE(s.cpuPercent, std::nullopt);
        QCOMPARE(s.diskWriteBytesPerSec, std::nullopt);
    }

    void pausedSampleHasNoCpu()
    {
        const sbw::DomainCounters runningBefore = running(kSecond);
        const sbw::DomainCounters paused =
            Record().state(VIR_DOMAIN_PAUSED).ull("cpu.time", kSecond + 1000).parse();
        QCOMPARE(sbw::sandboxSample(&runningBefore, paused, kSecond, 1).cpuPercent, std::nullopt);
        // Resumed: the tick after a paused one has no CPU either (the span mixes both).
        const sbw::DomainCounters resumed = running(kSecond + 2000);
        QCOMPARE(sbw::sandboxSample(&paused, resumed, kSecond, 1).cpuPercent, std::nullopt);
        QCOMPARE(sbw::domainStateFrom(VIR_DOMAIN_PAUSED, 0, false), sbw::DomainState::Paused);
    }

    void byteRatesPerSecond()
    {
        const sbw::DomainCounters before = Record()
                                               .state(VIR_DOMAIN_RUNNING)
                                               .ull("block.0.rd.bytes", 1000)
                                               .ull("block.0.wr.bytes", 0)
                                               .ull("net.0.rx.bytes", 0)
                                               .ull("net.0.tx.bytes", 10)
                                               .parse();
        const sbw::DomainCounters after = Record()
                                              .state(VIR_DOMAIN_RUNNING)
                                              .ull("block.0.rd.bytes", 1000 + 3 * 4096)
                                              .ull("block.0.wr.bytes", 1 << 20)
                                              .ull("net.0.rx.bytes", 300)
                                              .ull("net.0.tx.bytes", 10)
                                              .parse();
        const sbw::SandboxSample s = sbw::sandboxSample(&before, after, kSecond / 2, 1);
        QCOMPARE(s.diskReadBytesPerSec, std::optional<double>(2 * 3 * 4096));
        QCOMPARE(s.diskWriteBytesPerSec, std::optional<double>(2 << 20));
        QCOMPARE(s.netRxBytesPerSec, std::optional<double>(600));
        QCOMPARE(s.netTxBytesPerSec, std::optional<double>(0));
    }

    void memoryUsedIsAvailableMinusUnused()
    {
        const sbw::DomainCounters c = Record()
                                          .state(VIR_DOMAIN_RUNNING)
                                          .ull("balloon.available", 480 * 1024)
                                          .ull("balloon.unused", 400 * 1024 - 512)
                                          .parse();
        const sbw::SandboxSample s = sbw::sandboxSample(nullptr, c, 0, 1);
        QCOMPARE(s.memoryUsedMiB, std::optional<double>(80.5));
        QCOMPARE(s.memoryTotalMiB, std::optional<double>(480));
        // A guest reporting more unused than available never yields negative use.
        const sbw::DomainCounters odd = Record()
                                            .state(VIR_DOMAIN_RUNNING)
                                            .ull("balloon.available", 10)
                                            .ull("balloon.unused", 20)
                                            .parse();
        QCOMPARE(sbw::sandboxSample(nullptr, odd, 0, 1).memoryUsedMiB, std::optional<double>(0));
    }

    void hostFigures()
    {
        sbw::HostCounters before{400, 1000, 8 * 1024 * 1024, 6 * 1024 * 1024};
        sbw::HostCounters after{1150, 2000, 8 * 1024 * 1024, 5 * 1024 * 1024, 2560};
        const sbw::HostSample first = sbw::hostSample(nullptr, before);
        QCOMPARE(first.cpuPercent, std::nullopt);
        QCOMPARE(first.memoryUsedMiB, std::optional<double>(2048));
        const sbw::HostSample s = sbw::hostSample(&before, after);
        QCOMPARE(s.cpuPercent, std::optional<double>(75));
        QCOMPARE(s.memoryUsedMiB, std::optional<double>(3072));
        QCOMPARE(s.memoryTotalMiB, std::optional<double>(8192));
        QCOMPARE(first.mergedMiB, std::nullopt); // no KSM figure
        QCOMPARE(s.mergedMiB, std::optional<double>(10)); // 2560 pages of 4 KiB
        // Counters that went back (host rebooted behind a remote connection): no figure.
        QCOMPARE(sbw::hostSample(&after, before).cpuPercent, std::nullopt);
        // Driver without memory statistics.
        QCOMPARE(sbw::hostSample(nullptr, sbw::HostCounters{1, 2, 0, 0}).memoryTotalMiB,
                 std::nullopt);
    }

    void states()
    {
        QCOMPARE(sbw::domainStateFrom(VIR_DOMAIN_RUNNING, 0, false), sbw::DomainState::Running);
        QCOMPARE(sbw::domainStateFrom(VIR_DOMAIN_SHUTOFF, 0, false), sbw::DomainState::ShutOff);
        QCOMPARE(sbw::domainStateFrom(VIR_DOMAIN_SHUTOFF, 0, true), sbw::DomainState::Hibernated);
        QCOMPARE(sbw::domainStateName(sbw::DomainState::ShutOff), QStringLiteral("shut off"));
        QVERIFY(sbw::isHalted(sbw::DomainState::Hibernated));
        QVERIFY(!sbw::isHalted(sbw::DomainState::Running));
        // The reason tells a restore from a pause, and a crash from a shut-down.
        QCOMPARE(sbw::domainStateFrom(VIR_DOMAIN_PAUSED, VIR_DOMAIN_PAUSED_STARTING_UP, false),
                 sbw::DomainState::StartingUp);
        QCOMPARE(sbw::domainStateFrom(VIR_DOMAIN_SHUTOFF, VIR_DOMAIN_SHUTOFF_CRASHED, false),
                 sbw::DomainState::Crashed);
        QCOMPARE(sbw::domainStateName(sbw::DomainState::StartingUp), QStringLiteral("starting up"));
        QVERIFY(sbw::isHalted(sbw::DomainState::StartingUp));
    }
};

QTEST_GUILESS_MAIN(TestStatsCounters)
#include "tst_statscounters.moc"
