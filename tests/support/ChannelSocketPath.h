#pragma once

#include "base/Expected.h"

#include <QString>

#include <libvirt/libvirt.h>

namespace sbw::test {

/// The host end of the virtio-serial channel `port` (e.g. "org.sbw.ssh.0") of the domain
/// `domainName` on `conn`: the UNIX socket path in the domain's live XML, which OpenSSH's own
/// clients reach through `socat - UNIX-CONNECT:PATH`. Errors: no such domain; no channel named
/// `port` with a socket path in its XML.
Expected<QString> channelSocketPath(virConnectPtr conn, const QString& domainName, const QString& port);

} // namespace sbw::test
