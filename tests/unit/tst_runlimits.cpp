#include "guest/GuestLimitProbe.h"
#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "image/GuestImage.h"
#include "run/EphemeralRun.h"
#include "sandbox/SandboxLimits.h"
#include "workspace/WorkspaceRecord.h"

#include <QTest>
#include <QUuid>
#include <QXmlStreamReader>
#include <libvirt/libvirt.h>

// Limits as they reach libvirt, the guest and the run's result: the CPU share as cputune in the
// domain XML (accepted by libvirt's parser) and in a workspace's metadata, the disk limit as the
// overlay's size with the guest's grow flag, the guest's memory and disk report, and the
// sentences a person reads when a limit ended a run.
namespace {

sbw::DomainSpec spec(int cpuSharePercent)
{
    sbw::DomainSpec s;
    s.name = QStringLiteral("sbw-run-20261129-101500-limit");
    s.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    s.vcpus = 2;
    s.cpuSharePercent = cpuSharePercent;
    s.kernel = QStringLiteral("/pool/vmlinuz");
    s.initrd = QStringLiteral("/pool/initrd.img");
    s.disk = QStringLiteral("/pool/overlay.qcow2");
    s.sshPort = QStringLiteral("org.sbw.ssh.0");
    s.agentPort = QStringLiteral("org.qemu.guest_agent.0");
    return s;
}

/// Texts of every element called `name`.
QStringList texts(const QString& xml, const QString& name)
{
    QStringList out;
    QXmlStreamReader reader(xml);
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement() && reader.name() == name)
            out << reader.readElementText();
    }
    return out;
}

} // namespace

class TestRunLimits : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void cpuShareBecomesGlobalQuota()
    {
        const QString xml = sbw::domainXml(spec(50));
        QCOMPARE(texts(xml, QStringLiteral("global_period")),
                 QStringList{QStringLiteral("100000")});
        QCOMPARE(texts(xml, QStringLiteral("global_quota")), QStringList{QStringLiteral("50000")});
        // Above one core: 250 % is two and a half cores' time per period.
        QCOMPARE(texts(sbw::domainXml(spec(250)), QStringLiteral("global_quota")),
                 QStringList{QStringLiteral("250000")});
    }

    void noShareNoCputune()
    {
        const QString xml = sbw::domainXml(spec(0));
        QVERIFY(!xml.contains(QLatin1String("cputune")));
        QVERIFY(!xml.contains(QLatin1String("<interface"))); // network none: no NIC at all
    }

    void libvirtParsesTheQuota()
    {
        sbw::HypervisorConnection connection(QStringLiteral("test:///default"));
        QVERIFY(connection.ensureOpen().ok());
        QString xml = sbw::domainXml(spec(50));
        xml.replace(QLatin1String("type=\"qemu\""), QLatin1String("type=\"test\""));
        virDomainPtr domain = virDomainDefineXML(connection.handle(), xml.toUtf8().constData());
        QVERIFY(domain);
        char* parsed = virDomainGetXMLDesc(domain, VIR_DOMAIN_XML_INACTIVE);
        const QString back = QString::fromUtf8(parsed);
        free(parsed);
        virDomainUndefine(domain);
        virDomainFree(domain);
        QCOMPARE(texts(back, QStringLiteral("global_quota")), QStringList{QStringLiteral("50000")});
    }

    void workspaceKeepsItsCpuShare()
    {
        sbw::DomainSpec workspace = spec(30);
        workspace.name = sbw::workspaceDomainName(QStringLiteral("limited"));
        workspace.kind = sbw::DomainSpec::Kind::Workspace;
        workspace.workspaceName = QStringLiteral("limited");
        workspace.diskGiB = 8;
        const QString xml = sbw::domainXml(workspace);
        QCOMPARE(texts(xml, QStringLiteral("global_quota")), QStringList{QStringLiteral("30000")});
        auto record = sbw::workspaceRecordFromMetadata(xml, workspace.name, workspace.uuid);
        QVERIFY2(record.ok(), record ? "" : qPrintable(record.error().message));
        QCOMPARE(record->settings.cpuSharePercent, 30);
        QCOMPARE(record->settings.diskGiB, 8);
        QCOMPARE(sbw::WorkspaceRecord::fromJson(record->toJson()).settings.cpuSharePercent, 30);
        QCOMPARE(record->toJson().value(QStringLiteral("cpu_share_percent")).toInt(), 30);
    }

    void cpuShareRange()
    {
        QVERIFY(sbw::validateCpuShare(0, 1).ok());
        QVERIFY(sbw::validateCpuShare(1, 1).ok());
        QVERIFY(sbw::validateCpuShare(100, 1).ok());
        QVERIFY(sbw::validateCpuShare(200, 2).ok());
        QVERIFY(!sbw::validateCpuShare(-5, 1).ok());
        const auto tooMuch = sbw::validateCpuShare(150, 1);
        QVERIFY(!tooMuch.ok());
        QCOMPARE(tooMuch.error().message,
                 QStringLiteral("a CPU share is a percentage of one host core from 1 to 100 (100 "
                                "per vCPU), or 0 for no limit; 150 is not"));
    }

    void diskLimitIsTheOverlaySize()
    {
        sbw::GuestImage image;
        image.recipe = QStringLiteral("minimal");
        image.diskVirtualSize = qint64(4) << 30;

        const auto asImage = sbw::diskLimit(image, 0);
        QVERIFY(asImage.ok());
        QCOMPARE(asImage->bytes, qint64(4) << 30);
        QVERIFY(!asImage->grows);
        QCOMPARE(asImage->kernelParameter(), QString());
        QCOMPARE(sbw::diskLimit(image, 4)->grows, false);

        const auto larger = sbw::diskLimit(image, 8);
        QVERIFY(larger.ok());
        QCOMPARE(larger->bytes, qint64(8) << 30);
        QVERIFY(larger->grows);
        QCOMPARE(larger->kernelParameter(), QStringLiteral(" sbw.growfs=1"));

        const auto smaller = sbw::diskLimit(image, 2);
        QVERIFY(!smaller.ok());
        QCOMPARE(smaller.error().message,
                 QStringLiteral("the disk limit of 2 GiB is below the size of image 'minimal' "
                                "(4 GiB): use 4 GiB or more"));
        QCOMPARE(sbw::gibText(qint64(9) << 29), QStringLiteral("4.5 GiB"));
    }

    void guestReportsOomAndFullDisk()
    {
        // As the guest prints it: /proc/vmstat, the kernel's OOM line, stat -f /.
        const QByteArray oom =
            "oom_kill 1\n"
            "[   12.345678] Out of memory: Killed process 231 (python3) total-vm:312000kB, "
            "anon-rss:240000kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:600kB "
            "oom_score_adj:0\n"
            "root 1031680 990000 4096\n";
        const sbw::GuestLimitReport memory = sbw::parseGuestLimitReport(oom);
        QCOMPARE(memory.oomKills, 1);
        QCOMPARE(memory.oomVictim, QStringLiteral("python3 (pid 231)"));
        QCOMPARE(memory.rootBytes, qint64(1031680) * 4096);
        QCOMPARE(memory.rootAvailableBytes, qint64(990000) * 4096);
        QVERIFY(!memory.rootFull());

        const sbw::GuestLimitReport full =
            sbw::parseGuestLimitReport("oom_kill 0\nroot 1031680 12 4096\n");
        QCOMPARE(full.oomKills, 0);
        QCOMPARE(full.oomVictim, QString());
        QVERIFY(full.rootFull());

        // A process name is whatever the process set: nothing but plain characters comes out.
        const sbw::GuestLimitReport odd = sbw::parseGuestLimitReport(
            "Out of memory: Killed process 7 (\x1b[31mx\u202e) total-vm:1kB\n");
        QCOMPARE(odd.oomVictim, QStringLiteral("??31mx? (pid 7)"));
        QVERIFY(!sbw::parseGuestLimitReport("").rootFull()); // nothing known: not full

        // A workspace's kill count covers every earlier command: the kill's time says whether
        // it happened during the last one.
        const sbw::GuestLimitReport timed = sbw::parseGuestLimitReport(oom + "uptime 20.50\n");
        QCOMPARE(timed.uptimeSeconds, 20.5);
        QCOMPARE(timed.oomVictimAtSeconds, 12.345678);
        QVERIFY(timed.oomKillWithin(8.0));   // it ran 8 s (+2 s margin): from 10.5 s; kill at 12.35
        QVERIFY(!timed.oomKillWithin(1.0));  // it ran 1 s (+2 s margin): from 17.5 s
        QVERIFY(!memory.oomKillWithin(100)); // no uptime known
    }

    void resultNamesTheLimit()
    {
        sbw::RunResult capped;
        capped.signal = 9;
        capped.limit = sbw::RunLimit::OutputCap;
        capped.limitNote =
            QStringLiteral("stdout passed the output cap of 1024 bytes; the rest was "
                           "dropped and the script killed");
        QCOMPARE(capped.summary(), capped.limitNote);
        QCOMPARE(sbw::limitName(sbw::RunLimit::OutputCap), QStringLiteral("output cap"));
        QCOMPARE(sbw::limitName(sbw::RunLimit::Lifetime), QStringLiteral("lifetime"));
        QCOMPARE(sbw::limitName(sbw::RunLimit::Memory), QStringLiteral("memory limit"));
        QCOMPARE(sbw::limitName(sbw::RunLimit::Disk), QStringLiteral("disk limit"));
        QCOMPARE(capped.cliExitCode(), 137);
        // Ended on its own before the kill arrived: its output is still incomplete.
        capped.signal.reset();
        capped.exitStatus = 0;
        QCOMPARE(capped.cliExitCode(), 137);

        sbw::RunResult lifetime;
        lifetime.signal = 9;
        lifetime.timedOut = true;
        lifetime.limit = sbw::RunLimit::Lifetime;
        lifetime.limitNote =
            QStringLiteral("the session lifetime of 20 s ran out; the script was killed");
        QCOMPARE(lifetime.cliExitCode(), 124);
        QCOMPARE(lifetime.summary(), lifetime.limitNote);
    }
};

QTEST_GUILESS_MAIN(TestRunLimits)
#include "tst_runlimits.moc"
