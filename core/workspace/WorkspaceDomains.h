#pragma once

#include "base/Expected.h"
#include "workspace/WorkspaceRecord.h"
#include "workspace/WorkspaceState.h"

#include <QList>
#include <QStringList>
#include <memory>

typedef struct _virConnect* virConnectPtr;
typedef struct _virDomain* virDomainPtr;
struct _virDomain;
struct _virDomainSnapshot;

namespace sbw {

/// Frees a virDomainPtr.
struct DomainDeleter
{
    void operator()(_virDomain* domain) const;
};
using DomainPtr = std::unique_ptr<_virDomain, DomainDeleter>;

/// Frees a virDomainSnapshotPtr.
struct SnapshotDeleter
{
    void operator()(_virDomainSnapshot* snapshot) const;
};
using SnapshotPtr = std::unique_ptr<_virDomainSnapshot, SnapshotDeleter>;

/// The overlay volume of workspace `name` in the storage pool: "sbw-ws-<name>.qcow2".
QString workspaceOverlayVolume(const QString& name);
/// The serial console's log of workspace `name`, in the pool beside the overlay (a folder on
/// the daemon's host that exists for every connection): "sbw-ws-<name>.console.log".
QString workspaceConsoleLogVolume(const QString& name);

/// The record in the domain's workbench <metadata> (virDomainGetMetadata of the persistent
/// definition). Errors: no workbench metadata, not a workspace, libvirt failures.
Expected<WorkspaceRecord> readWorkspaceRecord(virDomainPtr domain);

/// Every workspace on the connection, found by metadata (kind "workspace"), ordered by name.
/// Domains without the workbench's metadata, and its ephemeral runs, are left out (and never
/// touched). Errors: the domain list cannot be read.
Expected<QList<WorkspaceRecord>> listWorkspaceRecords(virConnectPtr conn);

/// The workspace domain "sbw-ws-<name>" whose metadata says it is workspace `name`.
/// Errors: "no workspace named 'x'", a domain of that name that is not ours.
Expected<DomainPtr> lookupWorkspaceDomain(virConnectPtr conn, const QString& name);

/// The names of the domain's SSH virtio-serial channels, in the order of its definition:
/// `firstPort` ("org.sbw.ssh.0") and its siblings ("org.sbw.ssh.1" …), i.e. every channel whose
/// name starts like `firstPort` up to its last '.'. Just `firstPort` when the domain's XML
/// cannot be read.
QStringList readSshPorts(virDomainPtr domain, const QString& firstPort);

/// The domain's state as libvirt reports it now (virDomainGetState,
/// virDomainHasManagedSaveImage, the guest-agent channel state in the live XML); Unknown when
/// libvirt cannot answer.
WorkspaceState readWorkspaceState(virDomainPtr domain);

} // namespace sbw
