#include "DomainSpec.h"
#include "EphemeralRun.h"
#include "HypervisorConnection.h"

#include <QTest>
#include <QUuid>
#include <QXmlStreamReader>
#include <libvirt/libvirt.h>

// Limits as they reach libvirt and the run's result: the CPU share as cputune in the domain
// XML (accepted by libvirt's parser), and the sentences a person reads when a limit ended a run.
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
