#include "workspace/WorkspaceDomains.h"

#include "hypervisor/DomainSpec.h"
#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"

#include <QXmlStreamReader>
#include <algorithm>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

namespace sbw {
namespace {

QString domainName(virDomainPtr domain)
{
    return QString::fromUtf8(virDomainGetName(domain));
}

QString domainUuid(virDomainPtr domain)
{
    char uuid[VIR_UUID_STRING_BUFLEN] = {};
    virDomainGetUUIDString(domain, uuid);
    return QString::fromLatin1(uuid);
}

/// Whether the live XML shows the guest agent's virtio-serial channel opened by the guest
/// (<target type='virtio' name='org.qemu.guest_agent.0' state='connected'/>).
bool agentConnected(virDomainPtr domain)
{
    char* xml = virDomainGetXMLDesc(domain, 0);
    if (!xml)
        return false;
    QXmlStreamReader reader(QString::fromUtf8(xml));
    free(xml);
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement() && reader.name() == QLatin1String("target")) {
            const auto attributes = reader.attributes();
            if (attributes.value(QLatin1String("name")) == QLatin1String("org.qemu.guest_agent.0"))
                return attributes.value(QLatin1String("state")) == QLatin1String("connected");
        }
    }
    return false;
}

} // namespace

void SnapshotDeleter::operator()(_virDomainSnapshot* snapshot) const
{
    virDomainSnapshotFree(snapshot);
}

QString workspaceOverlayVolume(const QString& name)
{
    return workspaceDomainName(name) + StoragePool::kQcow2Suffix;
}

QString workspaceConsoleLogVolume(const QString& name)
{
    return workspaceDomainName(name) + QLatin1String(".console.log");
}

void DomainDeleter::operator()(_virDomain* domain) const
{
    virDomainFree(domain);
}

Expected<WorkspaceRecord> readWorkspaceRecord(virDomainPtr domain)
{
    char* xml = virDomainGetMetadata(domain, VIR_DOMAIN_METADATA_ELEMENT, kMetadataNamespace,
                                     VIR_DOMAIN_AFFECT_CONFIG);
    if (!xml) {
        const virErrorPtr error = virGetLastError();
        if (error && error->code == VIR_ERR_NO_DOMAIN_METADATA) {
            virResetLastError();
            return makeError(QStringLiteral("domain %1 has no Sandbox Workbench metadata")
                                 .arg(domainName(domain)));
        }
        return virtError(
            QStringLiteral("cannot read the metadata of domain %1").arg(domainName(domain)));
    }
    const QString text = QString::fromUtf8(xml);
    free(xml);
    return workspaceRecordFromMetadata(text, domainName(domain), domainUuid(domain));
}

Expected<QList<WorkspaceRecord>> listWorkspaceRecords(virConnectPtr conn)
{
    virDomainPtr* domains = nullptr;
    const int count = virConnectListAllDomains(conn, &domains, VIR_CONNECT_LIST_DOMAINS_PERSISTENT);
    if (count < 0)
        return virtError(QStringLiteral("cannot list the libvirt domains"));
    QList<WorkspaceRecord> records;
    for (int i = 0; i < count; ++i) {
        if (domainName(domains[i]).startsWith(QLatin1String(kWorkspaceDomainPrefix))) {
            if (auto record = readWorkspaceRecord(domains[i]))
                records << record.value();
        }
        virDomainFree(domains[i]);
    }
    free(domains);
    std::sort(records.begin(), records.end(),
              [](const WorkspaceRecord& a, const WorkspaceRecord& b) { return a.name < b.name; });
    return records;
}

Expected<DomainPtr> lookupWorkspaceDomain(virConnectPtr conn, const QString& name)
{
    if (!conn)
        return makeError(QStringLiteral("not connected to libvirt"));
    const QByteArray domainName = workspaceDomainName(name).toUtf8();
    DomainPtr domain(virDomainLookupByName(conn, domainName.constData()));
    if (!domain) {
        const virErrorPtr error = virGetLastError();
        if (error && error->code == VIR_ERR_NO_DOMAIN) {
            virResetLastError();
            return makeError(QStringLiteral("no workspace named '%1'").arg(name));
        }
        return virtError(QStringLiteral("cannot look up workspace '%1'").arg(name));
    }
    auto record = readWorkspaceRecord(domain.get());
    if (!record)
        return makeError(
            QStringLiteral("domain %1 is not a Sandbox Workbench workspace; leaving it alone")
                .arg(QString::fromUtf8(domainName)));
    if (record->name != name)
        return makeError(QStringLiteral("domain %1 belongs to workspace '%2', not '%3'")
                             .arg(QString::fromUtf8(domainName), record->name, name));
    return domain;
}

QStringList readSshPorts(virDomainPtr domain, const QString& firstPort)
{
    char* xml = virDomainGetXMLDesc(domain, 0);
    if (!xml)
        return {firstPort};
    QXmlStreamReader reader(QString::fromUtf8(xml));
    free(xml);
    const qsizetype dot = firstPort.lastIndexOf(QLatin1Char('.'));
    const QString prefix = dot < 0 ? firstPort : firstPort.left(dot + 1);
    QStringList ports;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement() && reader.name() == QLatin1String("target")) {
            const QString name = reader.attributes().value(QLatin1String("name")).toString();
            if (name.startsWith(prefix))
                ports << name;
        }
    }
    return ports.contains(firstPort) ? ports : QStringList{firstPort};
}

WorkspaceState readWorkspaceState(virDomainPtr domain)
{
    int state = 0;
    int reason = 0;
    if (virDomainGetState(domain, &state, &reason, 0) < 0)
        return WorkspaceState::Unknown;
    const bool managedSave =
        state == VIR_DOMAIN_SHUTOFF && virDomainHasManagedSaveImage(domain, 0) == 1;
    const bool agent = state == VIR_DOMAIN_RUNNING && agentConnected(domain);
    return workspaceStateFrom(domainStateFrom(state, reason, managedSave), agent);
}

} // namespace sbw
