// Workspace::fork: a new workspace from a copy of this one's overlay, with its memory when it
// runs. libvirt refuses to restore one domain's saved memory into a domain of another UUID, so
// the memory travels as an internal snapshot inside the copied overlay: the fork's definition
// is given the snapshot (VIR_DOMAIN_SNAPSHOT_CREATE_REDEFINE, with the fork's own <domain>) and
// reverted to it. See ARCHITECTURE.md, "Forks".

#include "workspace/Workspace.h"

#include "base/Logging.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"
#include "workspace/ForkDefinition.h"
#include "workspace/WorkspaceEnvironment.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <optional>

namespace sbw {
namespace {

QString libvirtText(char* text)
{
    const QString copy = QString::fromUtf8(text);
    free(text);
    return copy;
}

bool hasDomain(virConnectPtr conn, const QString& name)
{
    const QByteArray utf8 = name.toUtf8();
    DomainPtr domain(virDomainLookupByName(conn, utf8.constData()));
    virResetLastError();
    return domain != nullptr;
}

SnapshotPtr lookupSnapshot(virDomainPtr domain, const QString& name)
{
    const QByteArray utf8 = name.toUtf8();
    SnapshotPtr snapshot(virDomainSnapshotLookupByName(domain, utf8.constData(), 0));
    virResetLastError();
    return snapshot;
}

Expected<void> takeSnapshot(virDomainPtr domain, const QString& name, const QString& note)
{
    const QByteArray utf8 = checkpointSnapshotXml(name, note).toUtf8();
    SnapshotPtr snapshot(virDomainSnapshotCreateXML(domain, utf8.constData(), 0));
    if (!snapshot)
        return virtError(QStringLiteral("cannot take a checkpoint to fork from"));
    return {};
}

void deleteSnapshot(virDomainPtr domain, const QString& name)
{
    if (SnapshotPtr snapshot = lookupSnapshot(domain, name);
        !snapshot || virDomainSnapshotDelete(snapshot.get(), 0) < 0)
        qCWarning(lcVirt) << "cannot delete checkpoint" << name << ":" << lastVirtErrorMessage();
}

/// Gives `fork` every checkpoint of `source`, parents first, each with the fork's definition.
Expected<void> redefineCheckpoints(virDomainPtr source, virDomainPtr fork)
{
    const QString forkXml =
        libvirtText(virDomainGetXMLDesc(fork, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE));
    virDomainSnapshotPtr* snapshots = nullptr;
    const int count =
        virDomainListAllSnapshots(source, &snapshots, VIR_DOMAIN_SNAPSHOT_LIST_TOPOLOGICAL);
    if (count < 0)
        return virtError(QStringLiteral("cannot list the source's checkpoints"));
    Expected<void> result;
    for (int i = 0; i < count; ++i) {
        SnapshotPtr snapshot(snapshots[i]);
        if (!result)
            continue;
        const bool current = virDomainSnapshotIsCurrent(snapshot.get(), 0) == 1;
        auto xml = redefinedSnapshotXml(
            libvirtText(virDomainSnapshotGetXMLDesc(snapshot.get(), VIR_DOMAIN_XML_SECURE)), forkXml);
        if (!xml) {
            result = xml.error();
            continue;
        }
        const QByteArray utf8 = xml->toUtf8();
        const unsigned flags = VIR_DOMAIN_SNAPSHOT_CREATE_REDEFINE |
                               (current ? unsigned(VIR_DOMAIN_SNAPSHOT_CREATE_CURRENT) : 0u);
        if (SnapshotPtr made(virDomainSnapshotCreateXML(fork, utf8.constData(), flags)); !made)
            result = virtError(QStringLiteral("cannot give the fork checkpoint '%1'")
                                   .arg(QString::fromUtf8(virDomainSnapshotGetName(snapshot.get()))));
    }
    free(snapshots);
    return result;
}

/// The names of `domain`'s checkpoints; nullopt when libvirt cannot list them.
std::optional<QStringList> snapshotNames(virDomainPtr domain)
{
    virDomainSnapshotPtr* snapshots = nullptr;
    const int count = virDomainListAllSnapshots(domain, &snapshots, 0);
    if (count < 0)
        return std::nullopt;
    QStringList names;
    for (int i = 0; i < count; ++i) {
        SnapshotPtr snapshot(snapshots[i]);
        names << QString::fromUtf8(virDomainSnapshotGetName(snapshot.get()));
    }
    free(snapshots);
    return names;
}

/// Gives `target` the snapshot `name` of `source` (with `target`'s definition) and reverts to it.
Expected<void> revertToForeignSnapshot(virDomainPtr source, virDomainPtr target, const QString& name)
{
    SnapshotPtr snapshot = lookupSnapshot(source, name);
    if (!snapshot)
        return virtError(QStringLiteral("checkpoint '%1' is gone").arg(name));
    auto xml = redefinedSnapshotXml(
        libvirtText(virDomainSnapshotGetXMLDesc(snapshot.get(), VIR_DOMAIN_XML_SECURE)),
        libvirtText(virDomainGetXMLDesc(target, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE)));
    if (!xml)
        return xml.error();
    const QByteArray utf8 = xml->toUtf8();
    SnapshotPtr made(virDomainSnapshotCreateXML(target, utf8.constData(), VIR_DOMAIN_SNAPSHOT_CREATE_REDEFINE));
    if (!made || virDomainRevertToSnapshot(made.get(), 0) < 0)
        return virtError(QStringLiteral("cannot revert to checkpoint '%1'").arg(name));
    return {};
}

} // namespace

Expected<void> Workspace::copyOverlayTo(virDomainPtr domain, const QString& forkName)
{
    auto pool = StoragePool::open(m_connection.handle(), isSystemUri(m_connection.uri()));
    if (!pool)
        return pool.error();
    const bool live = virDomainIsActive(domain) == 1;
    // QEMU holds a running overlay open and caches its tables: a copy is only whole with QEMU
    // gone. The managed save keeps the memory (paused or running) for the restart below.
    if (live && virDomainManagedSave(domain, 0) < 0)
        return virtError(QStringLiteral("cannot save workspace '%1' to copy its disk").arg(m_record.name));
    auto copied = pool->copyVolume(workspaceOverlayVolume(m_record.name), workspaceOverlayVolume(forkName));
    if (live) {
        if (virDomainCreate(domain) < 0)
            return virtError(QStringLiteral("workspace '%1' is hibernated (its memory saved) but "
                                            "could not be restored: wake it")
                                 .arg(m_record.name));
        if (readWorkspaceState(domain) != WorkspaceState::Paused)
            if (auto synced = syncGuestClock(); !synced)
                qCWarning(lcVirt) << synced.error().message;
    }
    if (!copied)
        return copied.error();
    return {};
}

Expected<DomainPtr> Workspace::defineFork(virDomainPtr source, const QString& name,
                                          const ForkOptions& options)
{
    ForkIdentity identity;
    identity.workspace = name;
    identity.domain = workspaceDomainName(name);
    identity.overlay = m_record.overlay.left(m_record.overlay.lastIndexOf(QLatin1Char('/')) + 1) +
                       workspaceOverlayVolume(name);
    identity.consoleLog = identity.overlay.left(identity.overlay.lastIndexOf(QLatin1Char('/')) + 1) +
                          workspaceConsoleLogVolume(name);
    identity.created = QDateTime::currentDateTimeUtc();
    identity.origin = {m_record.name, options.checkpoint, identity.created};
    identity.offline = options.offline;
    auto xml = forkDomainXml(
        libvirtText(virDomainGetXMLDesc(source, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE)),
        identity);
    if (!xml)
        return xml.error();
    const QByteArray utf8 = xml->toUtf8();
    DomainPtr fork(virDomainDefineXML(m_connection.handle(), utf8.constData()));
    if (!fork)
        return virtError(QStringLiteral("cannot define workspace '%1'").arg(name));
    return fork;
}

Expected<std::unique_ptr<Workspace>> Workspace::fork(const QString& name, const ForkOptions& options)
{
    const QString& checkpoint = options.checkpoint;
    std::lock_guard lock(m_mutex);
    if (auto valid = validateWorkspaceName(name); !valid)
        return valid.error();
    virConnectPtr conn = m_connection.handle();
    if (hasDomain(conn, workspaceDomainName(name)))
        return makeError(QStringLiteral("a workspace named '%1' already exists").arg(name));
    auto source = lookupWorkspaceDomain(conn, m_record.name);
    if (!source)
        return source.error();
    virDomainPtr src = source->get();
    if (!checkpoint.isEmpty() && !lookupSnapshot(src, checkpoint))
        return makeError(QStringLiteral("workspace '%1' has no checkpoint '%2'").arg(m_record.name, checkpoint));
    if (readWorkspaceState(src) == WorkspaceState::Starting)
        return makeError(QStringLiteral("cannot fork workspace '%1' while it starts: wait until "
                                        "it runs").arg(m_record.name));

    // A running source's memory reaches the fork as a checkpoint taken for it.
    QString point = checkpoint;
    QString temporary;
    if (checkpoint.isEmpty() && options.memory && virDomainIsActive(src) == 1) {
        temporary = QStringLiteral("fork-") + name;
        dropSession(); // the fork's sshd then waits for a new connection, as after a revert
        if (auto taken = takeSnapshot(src, temporary, QStringLiteral("taken to fork %1; deleted once it is made").arg(name)); !taken)
            return taken.error();
        point = temporary;
    }
    auto forked = [&]() -> Expected<std::unique_ptr<Workspace>> {
        dropSession();
        if (auto copied = copyOverlayTo(src, name); !copied)
            return copied.error();
        auto fork = defineFork(src, name, options);
        if (!fork)
            return fork.error();
        auto record = readWorkspaceRecord(fork->get());
        if (!record)
            return record.error();
        auto workspace = std::make_unique<Workspace>(m_connection, record.value());
        if (auto given = redefineCheckpoints(src, fork->get()); !given)
            return given.error();
        if (!point.isEmpty()) {
            SnapshotPtr snapshot = lookupSnapshot(fork->get(), point);
            if (!snapshot || virDomainRevertToSnapshot(snapshot.get(), 0) < 0)
                return virtError(QStringLiteral("cannot bring fork '%1' to the checkpoint").arg(name));
            if (!temporary.isEmpty())
                deleteSnapshot(fork->get(), temporary);
            if (readWorkspaceState(fork->get()) == WorkspaceState::Running)
                if (auto synced = workspace->syncGuestClock(); !synced)
                    qCWarning(lcVirt) << synced.error().message;
        }
        if (auto onDisk = recordOnDisk()) {
            record->environment = onDisk->environment;
            record->checkpointBeforeApproved = onDisk->checkpointBeforeApproved;
        }
        workspace->m_record = record.value();
        if (auto saved = saveWorkspaceRecord(record.value()); !saved)
            qCWarning(lcVirt) << saved.error().message;
        return workspace;
    }();
    if (!temporary.isEmpty())
        deleteSnapshot(src, temporary);
    if (!forked) {
        if (auto opened = Workspace::open(m_connection, name))
            opened.value()->remove();
        else if (auto pool = StoragePool::open(conn, isSystemUri(m_connection.uri())))
            pool->deleteVolume(workspaceOverlayVolume(name));
        return forked.error();
    }
    qCInfo(lcVirt) << "forked workspace" << m_record.name << "into" << name;
    return forked;
}

Expected<void> Workspace::adoptFork(Workspace& fork)
{
    std::scoped_lock lock(m_mutex, fork.m_mutex);
    virConnectPtr conn = m_connection.handle();
    auto self = lookupWorkspaceDomain(conn, m_record.name);
    if (!self)
        return self.error();
    auto other = lookupWorkspaceDomain(conn, fork.m_record.name);
    if (!other)
        return other.error();
    const auto forkCheckpoints = snapshotNames(other->get());
    const auto ownCheckpoints = snapshotNames(self->get());
    if (!forkCheckpoints || !ownCheckpoints)
        return virtError(QStringLiteral("cannot list the checkpoints of workspace '%1' and its fork").arg(m_record.name));
    for (const QString& name : ownCheckpoints.value())
        if (!forkCheckpoints->contains(name))
            return makeError(QStringLiteral("workspace '%1' took checkpoint '%2' after the fork: "
                                            "taking the fork's state would lose it")
                                 .arg(m_record.name, name));
    auto pool = StoragePool::open(conn, isSystemUri(m_connection.uri()));
    if (!pool)
        return pool.error();
    // The fork's state, memory included, travels in its overlay as a checkpoint, as in fork().
    const QString point = QStringLiteral("adopt-") + fork.m_record.name;
    const bool live = virDomainIsActive(other->get()) == 1;
    fork.dropSession();
    if (live) {
        if (auto taken = takeSnapshot(other->get(), point, QStringLiteral("the state %1 takes").arg(m_record.name)); !taken)
            return taken;
        if (virDomainManagedSave(other->get(), 0) < 0)
            return virtError(QStringLiteral("cannot save fork '%1' to copy its disk").arg(fork.m_record.name));
    }
    const QString staged = workspaceDomainName(m_record.name) + QLatin1String(".adopt.qcow2");
    if (auto copied = pool->copyVolume(workspaceOverlayVolume(fork.m_record.name), staged); !copied)
        return copied.error();
    dropSession();
    if (virDomainIsActive(self->get()) == 1 && virDomainDestroy(self->get()) < 0)
        return virtError(QStringLiteral("cannot stop workspace '%1' to take the fork's state").arg(m_record.name));
    if (virDomainHasManagedSaveImage(self->get(), 0) == 1)
        virDomainManagedSaveRemove(self->get(), 0);
    if (auto copied = pool->copyVolume(staged, workspaceOverlayVolume(m_record.name)); !copied)
        return makeError(QStringLiteral("%1; the fork's disk is kept as volume %2")
                             .arg(copied.error().message, staged));
    pool->deleteVolume(staged);
    if (!live)
        return {};
    if (auto reverted = revertToForeignSnapshot(other->get(), self->get(), point); !reverted)
        return reverted;
    deleteSnapshot(self->get(), point);
    if (readWorkspaceState(self->get()) == WorkspaceState::Running)
        if (auto synced = syncGuestClock(); !synced)
            qCWarning(lcVirt) << synced.error().message;
    qCInfo(lcVirt) << "workspace" << m_record.name << "took the state of fork" << fork.m_record.name;
    return {};
}

} // namespace sbw
