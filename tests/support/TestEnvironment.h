#pragma once

#include <QString>
#include <QStringList>

namespace sbw::test {

/// The libvirt URI real-guest tests use: $LIBVIRT_DEFAULT_URI or the per-user default.
QString guestUri();

/// Names of domains on `uri` whose name starts with "sbw-run-" (any state), via libvirt.
QStringList runDomains(const QString& uri);

/// Names of volumes in the workbench's storage pool on `uri` starting with "sbw-run-".
QStringList runOverlays(const QString& uri);

} // namespace sbw::test
