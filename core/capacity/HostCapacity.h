#pragma once

#include <QtGlobal>

typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// How many sandboxes of `sandboxMiB` of guest memory a host with `cores` and `availableMiB`
/// (MemAvailable) holds at once: four per core (a sandbox mostly waits: a script's I/O, an
/// agent's next call; more running at once only share the cores), and no more than fit in the
/// available memory at the guest's size plus 128 MiB of QEMU's own (measured: a restored TCG
/// sandbox's QEMU holds about that beyond its guest's pages). At least 1, at most 64.
int defaultMaxSandboxes(int cores, qint64 availableMiB, int sandboxMiB);

/// defaultMaxSandboxes() of this host now (its online cores, MemAvailable of /proc/meminfo).
int hostMaxSandboxes(int sandboxMiB);

/// defaultMaxSandboxes() of the host `connection` reaches, from libvirt's figures of it
/// (virNodeGetInfo's CPUs; free + buffers + cached of virNodeGetMemoryStats, as libvirt reports
/// no MemAvailable): a remote host's own. 1 when it cannot be read.
int nodeMaxSandboxes(virConnectPtr connection, int sandboxMiB);

/// The maximum of running sandboxes: $SBW_MAX_SANDBOXES when it is a number from 1, else
/// `configured` when from 1, else hostMaxSandboxes(sandboxMiB) for a daemon on this machine
/// (`remote` null) or nodeMaxSandboxes(remote, sandboxMiB).
int maxSandboxes(int configured, int sandboxMiB, virConnectPtr remote = nullptr);

} // namespace sbw
