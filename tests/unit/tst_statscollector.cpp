#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "stats/StatsCollector.h"
#include "stats/StatsSampler.h"

#include <QSignalSpy>
#include <QTest>
#include <libvirt/libvirt.h>

// Which domains the sampler reports, against libvirt's test driver: only those with the
// workbench's <metadata> (not the driver's own "test", not a look-alike name), with their
// states, and the sampler's thread delivering ticks into the history.
namespace {

QString domainXml(const QString& name, bool ours)
{
    const QString metadata =
        ours ? QStringLiteral("<metadata><sbw:sandbox xmlns:sbw='%1'><sbw:kind>workspace</sbw:kind>"
                              "</sbw:sandbox></metadata>")
                   .arg(QLatin1String(sbw::kMetadataNamespace))
             : QString();
    return QStringLiteral("<domain type='test'><name>%1</name>%2<memory unit='MiB'>64</memory>"
                          "<vcpu>2</vcpu><os><type>hvm</type></os></domain>")
        .arg(name, metadata);
}

QStringList namesAndStates(const sbw::StatsTick& tick)
{
    QStringList out;
    for (const auto& s : tick.sandboxes)
        out << s.name + QLatin1Char('=') + sbw::domainStateName(s.state);
    return out;
}

} // namespace

class TestStatsCollector : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    virDomainPtr m_running = nullptr;
    virDomainPtr m_stopped = nullptr;
    virDomainPtr m_hibernated = nullptr;

    virDomainPtr define(const QString& name, bool ours)
    {
        const QByteArray xml = domainXml(name, ours).toUtf8();
        return virDomainDefineXML(m_connection->handle(), xml.constData());
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection =
            std::make_unique<sbw::HypervisorConnection>(QStringLiteral("test:///default"));
        QVERIFY(m_connection->ensureOpen().ok());
        const QByteArray ephemeral = domainXml(QStringLiteral("sbw-run-ours"), true).toUtf8();
        m_running = virDomainCreateXML(m_connection->handle(), ephemeral.constData(), 0);
        QVERIFY(m_running);
        const QByteArray lookAlike = domainXml(QStringLiteral("sbw-run-not-ours"), false).toUtf8();
        virDomainPtr other = virDomainCreateXML(m_connection->handle(), lookAlike.constData(), 0);
        QVERIFY(other);
        virDomainFree(other);
        m_stopped = define(QStringLiteral("workspace-stopped"), true);
        QVERIFY(m_stopped);
        m_hibernated = define(QStringLiteral("workspace-hibernated"), true);
        QVERIFY(m_hibernated);
        QCOMPARE(virDomainCreate(m_hibernated), 0);
        QCOMPARE(virDomainManagedSave(m_hibernated, 0), 0);
    }

    void selectsOnlyOurDomains()
    {
        sbw::StatsCollector collector;
        auto tick = collector.collect(m_connection->handle());
        QVERIFY2(tick.ok(), tick ? "" : qPrintable(tick.error().message));
        QCOMPARE(namesAndStates(tick.value()),
                 (QStringList{"sbw-run-ours=running", "workspace-hibernated=hibernated",
                              "workspace-stopped=shut off"}));
        QCOMPARE(tick->sandboxes.constFirst().vcpus, 2);
        QVERIFY(tick->sandboxes.constFirst().uuid.size() == 36);
        QVERIFY(tick->timeMs > 0);
    }

    void pausedDomainIsMarked()
    {
        sbw::StatsCollector collector;
        QVERIFY(collector.collect(m_connection->handle()).ok());
        QCOMPARE(virDomainSuspend(m_running), 0);
        auto tick = collector.collect(m_connection->handle());
        QCOMPARE(virDomainResume(m_running), 0);
        QVERIFY(tick.ok());
        QCOMPARE(tick->sandboxes.constFirst().state, sbw::DomainState::Paused);
        QCOMPARE(tick->sandboxes.constFirst().cpuPercent, std::nullopt);
    }

    void samplerDeliversTicksFromItsThread()
    {
        sbw::StatsSampler sampler(m_connection.get(), std::chrono::milliseconds(50));
        QSignalSpy ticks(&sampler, &sbw::StatsSampler::sampled);
        QSignalSpy failures(&sampler, &sbw::StatsSampler::samplingFailed);
        sampler.start();
        QTRY_VERIFY(ticks.size() >= 3);
        sampler.stop();
        QCOMPARE(failures.size(), 0);
        const auto tick = ticks.constLast().constFirst().value<sbw::StatsTick>();
        QCOMPARE(tick.sandboxes.size(), 3);
        const QString uuid = tick.sandboxes.constFirst().uuid;
        QVERIFY(sampler.history(uuid).size() >= 3);
        QCOMPARE(sampler.sandboxes().size(), 3);
        QCOMPARE(sampler.history(uuid).constLast().name, QStringLiteral("sbw-run-ours"));
    }

    void failureIsReportedOnceNotPerTick()
    {
        sbw::HypervisorConnection unreachable(QStringLiteral("test:///nonexistent/sbw-stats.xml"));
        sbw::StatsSampler sampler(&unreachable, std::chrono::milliseconds(20));
        QSignalSpy ticks(&sampler, &sbw::StatsSampler::sampled);
        QSignalSpy failures(&sampler, &sbw::StatsSampler::samplingFailed);
        sampler.start();
        QTest::qWait(300); // about 15 ticks
        sampler.stop();
        QCOMPARE(ticks.size(), 0);
        QCOMPARE(failures.size(), 1);
        QVERIFY2(failures.constFirst().constFirst().toString().startsWith(QLatin1String(
                     "cannot connect to libvirt at test:///nonexistent/sbw-stats.xml: ")),
                 qPrintable(failures.constFirst().constFirst().toString()));
    }

    void cleanupTestCase()
    {
        for (virDomainPtr d : {m_running, m_stopped, m_hibernated})
            if (d)
                virDomainFree(d);
    }
};

QTEST_GUILESS_MAIN(TestStatsCollector)
#include "tst_statscollector.moc"
