#pragma once

#include "base/Expected.h"
#include "workspace/WorkspaceRecord.h"

#include <QDateTime>
#include <QString>

namespace sbw {

/// What makes a fork a workspace of its own inside a copy of its source's definition.
struct ForkIdentity
{
    QString workspace;  ///< the fork's workspace name
    QString domain;     ///< its domain name, workspaceDomainName(workspace)
    QString overlay;    ///< path of its overlay volume, as QEMU sees it
    QString consoleLog; ///< path of its serial console's log
    QDateTime created;  ///< UTC
    WorkspaceOrigin origin;
    bool offline = false; ///< no network: settings.network none, every NIC's link down
};

/// The inactive definition of a fork: `sourceXml` (the source domain's
/// virDomainGetXMLDesc(INACTIVE | SECURE)) with the fork's name, no UUID (libvirt assigns
/// one), its overlay as the source of disk vda, its console log, and the workbench metadata's
/// name, overlay, creation time and origin. Everything else — devices, their addresses, MAC
/// addresses — stays as it is, so memory saved by the source loads into the fork. An offline
/// fork keeps its NICs (the saved memory expects them) with <link state='down'/>, which libvirt
/// applies at every start and revert, after QEMU has loaded the memory.
/// Errors: not a domain XML, no disk vda, no workbench metadata.
Expected<QString> forkDomainXml(const QString& sourceXml, const ForkIdentity& fork);

/// A snapshot description (virDomainSnapshotGetXMLDesc(SECURE) of the source's checkpoint) to
/// redefine in the fork (VIR_DOMAIN_SNAPSHOT_CREATE_REDEFINE): its <domain> replaced by
/// `domainXml`, the fork's definition, and <inactiveDomain> left out, so a revert to it keeps
/// the fork's name, UUID and disks. Errors: either text is not the XML it should be.
Expected<QString> redefinedSnapshotXml(const QString& snapshotXml, const QString& domainXml);

} // namespace sbw
