#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "workspace/WorkspaceCheckpoint.h"
#include "workspace/WorkspaceDomains.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspaceRecord.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>
#include <QUuid>
#include <libvirt/libvirt.h>

namespace {

sbw::DomainSpec workspaceSpec(const QString& name)
{
    sbw::DomainSpec spec;
    spec.name = sbw::workspaceDomainName(name);
    spec.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    spec.kind = sbw::DomainSpec::Kind::Workspace;
    spec.memoryMiB = 256;
    spec.vcpus = 2;
    spec.kernel = QStringLiteral("/pool/abc-vmlinuz");
    spec.initrd = QStringLiteral("/pool/abc-initrd.img");
    spec.cmdline = QStringLiteral("console=ttyS0 root=/dev/vda");
    spec.disk = QStringLiteral("/pool/sbw-ws-%1.qcow2").arg(name);
    spec.sshPort = QStringLiteral("org.sbw.ssh.0");
    spec.extraSshPorts = {QStringLiteral("org.sbw.ssh.1"), QStringLiteral("org.sbw.ssh.2")};
    spec.agentPort = QStringLiteral("org.qemu.guest_agent.0");
    spec.imageRecipe = QStringLiteral("minimal");
    spec.imageHash = QStringLiteral("0123456789abcdef");
    spec.imageBuildId = QStringLiteral("0123456789abcdef-12345678");
    spec.created = QDateTime(QDate(2026, 11, 29), QTime(10, 15, 30, 250), QTimeZone::utc());
    spec.workspaceName = name;
    spec.diskGiB = 8;
    spec.hostKey = QStringLiteral("ssh-ed25519 AAAAhostkey");
    spec.natNetwork = true;
    return spec;
}

sbw::WorkspaceRecord expectedRecord(const sbw::DomainSpec& spec)
{
    sbw::WorkspaceRecord r;
    r.name = spec.workspaceName;
    r.domainName = spec.name;
    r.uuid = spec.uuid;
    r.imageHash = spec.imageHash;
    r.imageBuildId = spec.imageBuildId;
    r.overlay = spec.disk;
    r.sshPort = spec.sshPort;
    r.hostKey = spec.hostKey;
    r.created = spec.created;
    r.settings.recipe = spec.imageRecipe;
    r.settings.vcpus = 2;
    r.settings.memoryMiB = 256;
    r.settings.diskGiB = 8;
    r.settings.network = sbw::WorkspaceNetwork::Nat;
    return r;
}

bool define(virConnectPtr conn, const QString& xml)
{
    const QByteArray utf8 = xml.toUtf8();
    virDomainPtr domain = virDomainDefineXML(conn, utf8.constData());
    if (domain)
        virDomainFree(domain);
    return domain != nullptr;
}

void undefineAll(virConnectPtr conn)
{
    virDomainPtr* domains = nullptr;
    const int count = virConnectListAllDomains(conn, &domains, 0);
    for (int i = 0; i < count; ++i) {
        const QString name = QString::fromUtf8(virDomainGetName(domains[i]));
        if (name.startsWith(QLatin1String("sbw-")) || name == QLatin1String("someone-else")) {
            if (virDomainIsActive(domains[i]) == 1)
                virDomainDestroy(domains[i]);
            virDomainUndefineFlags(domains[i], VIR_DOMAIN_UNDEFINE_MANAGED_SAVE);
        }
        virDomainFree(domains[i]);
    }
    free(domains);
}

const char kForeignXml[] = "<domain type='test'><name>%1</name><memory>131072</memory>"
                           "<os><type>hvm</type></os>%2</domain>";

} // namespace

// Workspace metadata as written into the domain XML and read back, the JSON record, and
// finding workspaces by metadata on libvirt's test driver (reattach).
class TestWorkspaceRecord : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    sbw::HypervisorConnection m_connection{QStringLiteral("test:///default")};

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        QVERIFY(m_connection.ensureOpen().ok());
    }

    void cleanup() { undefineAll(m_connection.handle()); }

    void defaultMemoryIs512MiBAnd1024ForTheBrowserImage()
    {
        // Chromium's renderer cannot start in a 512 MiB guest (measured: every page crashed).
        QCOMPARE(sbw::defaultWorkspaceMemoryMiB(QStringLiteral("minimal")), 512);
        QCOMPARE(sbw::defaultWorkspaceMemoryMiB(QStringLiteral("python-data")), 512);
        QCOMPARE(sbw::defaultWorkspaceMemoryMiB(QStringLiteral("browser")), 1024);
        QCOMPARE(sbw::WorkspaceSettings().memoryMiB, 512);
    }

    void metadataRoundTrip()
    {
        const sbw::DomainSpec spec = workspaceSpec(QStringLiteral("agent-1"));
        const QString xml = sbw::domainXml(spec);
        // NAT is QEMU's user-mode network, which the guest's fixed addresses assume.
        QVERIFY(xml.contains(QLatin1String("<interface type=\"user\">")));
        QVERIFY(xml.contains(
            QLatin1String("<ip family=\"ipv4\" address=\"10.0.2.0\" prefix=\"24\"/>")));
        QVERIFY(xml.contains(QLatin1String("<model type=\"virtio\"/>")));
        auto record = sbw::workspaceRecordFromMetadata(xml, spec.name, spec.uuid);
        QVERIFY2(record.ok(), record ? "" : qPrintable(record.error().message));
        QCOMPARE(record.value(), expectedRecord(spec));
    }

    void metadataThroughLibvirt()
    {
        // virDomainGetMetadata hands the element back without its namespace.
        const sbw::DomainSpec spec = workspaceSpec(QStringLiteral("agent-2"));
        QVERIFY(define(m_connection.handle(), sbw::domainXml(spec)));
        auto domain = sbw::lookupWorkspaceDomain(m_connection.handle(), QStringLiteral("agent-2"));
        QVERIFY2(domain.ok(), domain ? "" : qPrintable(domain.error().message));
        auto record = sbw::readWorkspaceRecord(domain->get());
        QVERIFY2(record.ok(), record ? "" : qPrintable(record.error().message));
        QCOMPARE(record.value(), expectedRecord(spec));
        // The SSH channels a client may take, in order; the agent's channel is not one.
        QCOMPARE(sbw::readSshPorts(domain->get(), record->sshPort),
                 (QStringList{QStringLiteral("org.sbw.ssh.0"), QStringLiteral("org.sbw.ssh.1"),
                              QStringLiteral("org.sbw.ssh.2")}));
    }

    void ephemeralMetadataIsNotAWorkspace()
    {
        sbw::DomainSpec spec = workspaceSpec(QStringLiteral("x"));
        spec.kind = sbw::DomainSpec::Kind::Ephemeral;
        auto record = sbw::workspaceRecordFromMetadata(sbw::domainXml(spec), spec.name, spec.uuid);
        QVERIFY(!record.ok());
        QCOMPARE(record.error().message,
                 QStringLiteral("domain sbw-ws-x is not a workspace (kind 'ephemeral')"));
    }

    void jsonRoundTrip()
    {
        const sbw::WorkspaceRecord record =
            expectedRecord(workspaceSpec(QStringLiteral("agent-3")));
        QCOMPARE(sbw::WorkspaceRecord::fromJson(record.toJson()), record);
        QCOMPARE(record.toJson().value(QStringLiteral("network")).toString(),
                 QStringLiteral("nat"));
        QVERIFY(sbw::saveWorkspaceRecord(record).ok());
        QVERIFY(QFile::exists(m_data.path() +
                              QStringLiteral("/sandbox-workbench/workspaces/agent-3.json")));
        QVERIFY(sbw::removeWorkspaceRecord(QStringLiteral("agent-3")).ok());
        QVERIFY(!QFile::exists(m_data.path() +
                               QStringLiteral("/sandbox-workbench/workspaces/agent-3.json")));
    }

    void environmentIsKeptInTheRecordOnly()
    {
        sbw::WorkspaceRecord record = expectedRecord(workspaceSpec(QStringLiteral("env-1")));
        QVERIFY(record.environment.set(QStringLiteral("GREETING"), QStringLiteral("it's me"), false).ok());
        QVERIFY(record.environment.set(QStringLiteral("TOKEN"), QStringLiteral("t0k"), true).ok());
        QVERIFY(record.environment.set(QStringLiteral("GREETING"), QStringLiteral("hi"), false).ok());
        QCOMPARE(record.environment.set(QStringLiteral("1X"), QStringLiteral("v"), false).error().message,
                 QStringLiteral("'1X' is not an environment variable name: use letters, digits and "
                                "'_', not starting with a digit"));
        QCOMPARE(record.environment.exportLines(), QByteArray("export GREETING='hi'\nexport TOKEN='t0k'\n"));
        QCOMPARE(record.environment.secretValues(), QList<QByteArray>{"t0k"});
        QVERIFY(sbw::saveWorkspaceRecord(record).ok());
        const QString path = m_data.path() + QStringLiteral("/sandbox-workbench/workspaces/env-1.json");
        QCOMPARE(QFile::permissions(path) & 0x0077, QFileDevice::Permissions()); // owner only
        QCOMPARE(sbw::loadWorkspaceEnvironment(QStringLiteral("env-1")).value(), record.environment);
        QVERIFY(sbw::loadWorkspaceEnvironment(QStringLiteral("none-such")).value().isEmpty());
        // Quotes survive: the value is one shell word.
        sbw::WorkspaceEnvironment quoted;
        QVERIFY(quoted.set(QStringLiteral("Q"), QStringLiteral("a'b"), false).ok());
        QCOMPARE(quoted.exportLines(), QByteArray("export Q='a'\\''b'\n"));
        QVERIFY(quoted.unset(QStringLiteral("Q")));
        QVERIFY(!quoted.unset(QStringLiteral("Q")));
        // Never in the domain's metadata.
        QVERIFY(!sbw::domainXml(workspaceSpec(QStringLiteral("env-1"))).contains(QStringLiteral("t0k")));
    }

    void names()
    {
        QVERIFY(sbw::validateWorkspaceName(QStringLiteral("agent-1")).ok());
        QVERIFY(!sbw::validateWorkspaceName(QStringLiteral("Agent")).ok());
        QVERIFY(!sbw::validateWorkspaceName(QStringLiteral("-x")).ok());
        QVERIFY(!sbw::validateWorkspaceName(QString()).ok());
        QVERIFY(!sbw::validateWorkspaceName(QString(41, QLatin1Char('a'))).ok());
    }

    void listsOnlyOurWorkspaces()
    {
        virConnectPtr conn = m_connection.handle();
        QVERIFY(define(conn, sbw::domainXml(workspaceSpec(QStringLiteral("beta")))));
        QVERIFY(define(conn, sbw::domainXml(workspaceSpec(QStringLiteral("alpha")))));
        sbw::DomainSpec run = workspaceSpec(QStringLiteral("run"));
        run.kind = sbw::DomainSpec::Kind::Ephemeral;
        QVERIFY(define(conn, sbw::domainXml(run)));
        // Named like a workspace but without our metadata, and one of another program.
        QVERIFY(define(
            conn,
            QString::fromLatin1(kForeignXml).arg(QStringLiteral("sbw-ws-impostor"), QString())));
        QVERIFY(define(
            conn, QString::fromLatin1(kForeignXml).arg(QStringLiteral("someone-else"), QString())));

        auto records = sbw::listWorkspaceRecords(conn);
        QVERIFY(records.ok());
        QStringList names;
        for (const auto& record : records.value())
            names << record.name;
        QCOMPARE(names, (QStringList{QStringLiteral("alpha"), QStringLiteral("beta")}));

        auto impostor = sbw::lookupWorkspaceDomain(conn, QStringLiteral("impostor"));
        QVERIFY(!impostor.ok());
        QCOMPARE(
            impostor.error().message,
            QStringLiteral(
                "domain sbw-ws-impostor is not a Sandbox Workbench workspace; leaving it alone"));
        QCOMPARE(sbw::lookupWorkspaceDomain(conn, QStringLiteral("gamma")).error().message,
                 QStringLiteral("no workspace named 'gamma'"));
    }

    void managerFollowsLifecycleEvents()
    {
        virConnectPtr conn = m_connection.handle();
        QVERIFY(define(conn, sbw::domainXml(workspaceSpec(QStringLiteral("alpha")))));
        sbw::WorkspaceManager manager(&m_connection);
        QSignalSpy states(&manager, &sbw::WorkspaceManager::stateChanged);
        QVERIFY(manager.refresh().ok());
        QCOMPARE(manager.workspaces().size(), 1);
        QCOMPARE(manager.state(QStringLiteral("alpha")), sbw::WorkspaceState::Stopped);
        QVERIFY(manager.workspace(QStringLiteral("alpha")) != nullptr);

        // A workspace defined elsewhere (another workbench, the CLI) shows up by its event.
        QSignalSpy listed(&manager, &sbw::WorkspaceManager::workspacesChanged);
        QVERIFY(define(conn, sbw::domainXml(workspaceSpec(QStringLiteral("beta")))));
        QTRY_COMPARE(manager.workspaces().size(), 2);
        QVERIFY(listed.count() >= 1);

        auto domain = sbw::lookupWorkspaceDomain(conn, QStringLiteral("alpha"));
        QVERIFY(domain.ok());
        // The test driver has no guest agent: a running domain stays "starting".
        QCOMPARE(virDomainCreate(domain->get()), 0);
        QTRY_COMPARE(manager.state(QStringLiteral("alpha")), sbw::WorkspaceState::Starting);
        QCOMPARE(virDomainSuspend(domain->get()), 0);
        QTRY_COMPARE(manager.state(QStringLiteral("alpha")), sbw::WorkspaceState::Paused);
        QCOMPARE(virDomainManagedSave(domain->get(), 0), 0);
        QTRY_COMPARE(manager.state(QStringLiteral("alpha")), sbw::WorkspaceState::Hibernated);
        QCOMPARE(manager.state(QStringLiteral("beta")), sbw::WorkspaceState::Stopped);

        // A new manager (the workbench restarted) finds the same true states.
        sbw::WorkspaceManager again(&m_connection);
        QVERIFY(again.refresh().ok());
        QCOMPARE(again.state(QStringLiteral("alpha")), sbw::WorkspaceState::Hibernated);
        QCOMPARE(again.state(QStringLiteral("beta")), sbw::WorkspaceState::Stopped);
    }

    void checkpointXml()
    {
        const QString xml = QStringLiteral(
            "<domainsnapshot><name>B</name><description>after v2</description><state>paused</state>"
            "<parent><name>A</name></parent><creationTime>1795956604</creationTime>"
            "<memory snapshot='internal'/><domain type='qemu'><name>sbw-ws-x</name></domain>"
            "</domainsnapshot>");
        auto info = sbw::checkpointFromSnapshotXml(xml);
        QVERIFY(info.ok());
        QCOMPARE(info->name, QStringLiteral("B"));
        QCOMPARE(info->note, QStringLiteral("after v2"));
        QCOMPARE(info->guestState, QStringLiteral("paused"));
        QCOMPARE(info->parent, QStringLiteral("A"));
        QCOMPARE(info->created, QDateTime::fromSecsSinceEpoch(1795956604, QTimeZone::utc()));
    }

    void revertImpactText()
    {
        sbw::RevertImpact impact;
        impact.checkpoint = QStringLiteral("A");
        impact.checkpointCreated = QDateTime(QDate(2026, 11, 29), QTime(12, 50), QTimeZone::utc());
        impact.secondsLost = 330;
        impact.guestRunning = true;
        impact.laterCheckpoints = 1;
        QCOMPARE(
            impact.describe(),
            QStringLiteral("Reverting to 'A' discards every change to disk and memory made since "
                           "2026-11-29 12:50 UTC (5 min ago). 1 later checkpoint is kept."));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceRecord)
#include "tst_workspacerecord.moc"
