#include "hypervisor/DomainSpec.h"
#include "workspace/ForkDefinition.h"
#include "workspace/WorkspaceRecord.h"

#include <QDomDocument>
#include <QTest>
#include <QTimeZone>

namespace {

/// The definition of workspace "web" on a NAT network, as Workspace::create writes it.
QString sourceXml()
{
    sbw::DomainSpec spec;
    spec.kind = sbw::DomainSpec::Kind::Workspace;
    spec.name = sbw::workspaceDomainName(QStringLiteral("web"));
    spec.uuid = QStringLiteral("6f1c3c43-6c1b-4a55-9d0e-2a1f2f7a1b11");
    spec.kernel = QStringLiteral("/pool/abc-vmlinuz");
    spec.initrd = QStringLiteral("/pool/abc-initrd.img");
    spec.cmdline = QStringLiteral("console=ttyS0 root=/dev/vda");
    spec.disk = QStringLiteral("/pool/sbw-ws-web.qcow2");
    spec.consoleLog = QStringLiteral("/pool/sbw-ws-web.console.log");
    spec.sshPort = QStringLiteral("org.sbw.ssh.0");
    spec.agentPort = QStringLiteral("org.qemu.guest_agent.0");
    spec.imageRecipe = QStringLiteral("minimal");
    spec.imageHash = QStringLiteral("0123456789abcdef");
    spec.created = QDateTime(QDate(2026, 12, 1), QTime(9, 0), QTimeZone::utc());
    spec.workspaceName = QStringLiteral("web");
    spec.diskGiB = 4;
    spec.natNetwork = true;
    spec.networkMode = QStringLiteral("nat");
    return sbw::domainXml(spec);
}

sbw::ForkIdentity identity(bool offline)
{
    sbw::ForkIdentity fork;
    fork.workspace = QStringLiteral("web-try");
    fork.domain = sbw::workspaceDomainName(fork.workspace);
    fork.overlay = QStringLiteral("/pool/sbw-ws-web-try.qcow2");
    fork.consoleLog = QStringLiteral("/pool/sbw-ws-web-try.console.log");
    fork.created = QDateTime(QDate(2026, 12, 4), QTime(18, 0), QTimeZone::utc());
    fork.origin = {QStringLiteral("web"), QString(), fork.created};
    fork.offline = offline;
    return fork;
}

QDomElement nic(const QString& xml)
{
    QDomDocument document;
    document.setContent(xml);
    return document.documentElement()
        .firstChildElement(QStringLiteral("devices"))
        .firstChildElement(QStringLiteral("interface"));
}

} // namespace

class TestForkDefinition : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void forkHasItsOwnNameDiskAndOrigin()
    {
        auto xml = sbw::forkDomainXml(sourceXml(), identity(false));
        QVERIFY2(xml, xml ? "" : qPrintable(xml.error().message));
        QVERIFY(!xml->contains(QLatin1String("6f1c3c43")));
        QVERIFY(xml->contains(QLatin1String("<source file=\"/pool/sbw-ws-web-try.qcow2\"")));
        QVERIFY(!xml->contains(QLatin1String("/pool/sbw-ws-web.qcow2")));
        QVERIFY(!xml->contains(QLatin1String("/pool/sbw-ws-web.console.log")));
        auto record = sbw::workspaceRecordFromMetadata(xml.value(), QStringLiteral("sbw-ws-web-try"), QString());
        QVERIFY2(record, record ? "" : qPrintable(record.error().message));
        QCOMPARE(record->name, QStringLiteral("web-try"));
        QCOMPARE(record->overlay, QStringLiteral("/pool/sbw-ws-web-try.qcow2"));
        QCOMPARE(record->origin.describe(), QStringLiteral("fork of web"));
        QCOMPARE(record->settings.network, sbw::WorkspaceNetwork::Nat);
        QVERIFY(!nic(xml.value()).isNull());
        QVERIFY(nic(xml.value()).firstChildElement(QStringLiteral("link")).isNull());
    }

    void offlineForkKeepsItsNicWithTheLinkDown()
    {
        auto xml = sbw::forkDomainXml(sourceXml(), identity(true));
        QVERIFY2(xml, xml ? "" : qPrintable(xml.error().message));
        const QDomElement interface = nic(xml.value());
        QCOMPARE(interface.attribute(QStringLiteral("type")), QStringLiteral("user"));
        QCOMPARE(interface.firstChildElement(QStringLiteral("link")).attribute(QStringLiteral("state")),
                 QStringLiteral("down"));
        auto record = sbw::workspaceRecordFromMetadata(xml.value(), QStringLiteral("sbw-ws-web-try"), QString());
        QVERIFY2(record, record ? "" : qPrintable(record.error().message));
        QCOMPARE(record->settings.network, sbw::WorkspaceNetwork::None);
    }

    void snapshotTakesTheForksDefinition()
    {
        auto fork = sbw::forkDomainXml(sourceXml(), identity(true));
        const QString snapshot = QStringLiteral("<domainsnapshot><name>before-3</name><state>running</state>") +
                                 sourceXml() + QStringLiteral("<inactiveDomain/></domainsnapshot>");
        auto xml = sbw::redefinedSnapshotXml(snapshot, fork.value());
        QVERIFY2(xml, xml ? "" : qPrintable(xml.error().message));
        QVERIFY(xml->contains(QLatin1String("<name>sbw-ws-web-try</name>")));
        QVERIFY(!xml->contains(QLatin1String("<name>sbw-ws-web</name>")));
        QVERIFY(!xml->contains(QLatin1String("inactiveDomain")));
        QVERIFY(xml->contains(QLatin1String("<link state=\"down\"/>")));
    }

    void notADefinitionIsRefused()
    {
        auto xml = sbw::forkDomainXml(QStringLiteral("<domain"), identity(false));
        QVERIFY(!xml);
        QVERIFY(xml.error().message.contains(QLatin1String("not valid XML")));
    }
};

QTEST_GUILESS_MAIN(TestForkDefinition)
#include "tst_forkdefinition.moc"
