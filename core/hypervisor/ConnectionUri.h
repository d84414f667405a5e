#pragma once

#include <QString>

namespace sbw {

/// Picks the libvirt connection URI the way libvirt's own tools (virsh, virt-manager) do:
/// an explicit `--connect URI` wins, then $LIBVIRT_DEFAULT_URI, then qemu:///system for root
/// (uid 0) and qemu:///session for every other user (unprivileged, like GNOME Boxes).
/// `explicitUri` and `environmentUri` may be empty.
QString chooseConnectionUri(const QString& explicitUri, const QString& environmentUri, unsigned uid);

/// chooseConnectionUri() with $LIBVIRT_DEFAULT_URI and the real uid of this process.
QString defaultConnectionUri(const QString& explicitUri = {});

/// True for URIs whose daemon runs QEMU as a system service (path "/system"), where files QEMU
/// opens must live in libvirt's own images folder rather than in a user's home.
bool isSystemUri(const QString& uri);

/// True for URIs without a host name (qemu:///system, qemu+unix:///session, test:///default):
/// the daemon runs on this machine, so files it writes can be read here.
bool isLocalUri(const QString& uri);

/// How a host is named in lists: the URI's host name ("server", "127.0.0.1"), or the whole URI
/// for a local one ("qemu:///system").
QString hostDisplayName(const QString& uri);

} // namespace sbw
