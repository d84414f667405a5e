#pragma once

#include <QString>
#include <QStringList>
#include <QtGlobal>

namespace sbw::test {

/// The libvirt URI real-guest tests use: $LIBVIRT_DEFAULT_URI or the per-user default.
QString guestUri();

/// Names of domains on `uri` whose name starts with `prefix` (any state), via libvirt;
/// "<cannot connect>" when libvirt does not answer.
QStringList domainsNamed(const QString& uri, const QString& prefix);

/// domainsNamed(uri, "sbw-run-").
QStringList runDomains(const QString& uri);

/// A free TCP port on 127.0.0.1 (bound and released; the server that takes it starts at once).
quint16 freeLoopbackPort();

/// Names of volumes in the workbench's storage pool on `uri` starting with `prefix`;
/// "<cannot connect>" or "<no pool>" when libvirt does not answer.
QStringList volumesNamed(const QString& uri, const QString& prefix);

/// volumesNamed(uri, "sbw-run-").
QStringList runOverlays(const QString& uri);

/// What a test left on `uri`: its domains and volumes named with `prefix`.
QStringList leftovers(const QString& uri, const QString& prefix);

} // namespace sbw::test
