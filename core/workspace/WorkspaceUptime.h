#pragma once

#include "base/Expected.h"

#include <QByteArrayView>

#include <chrono>
#include <optional>

namespace sbw {

class Workspace;

/// When the guest of a running `workspace` booted, on this host's monotonic clock: the moment
/// its answer arrived minus its own uptime (the first field of its /proc/uptime), read over the
/// workspace's SSH session (Workspace::borrowSession(): one opened for this read closes after
/// it, which can take a while and is not counted). The guest's clock stands still while it is
/// paused. Blocks for one command's round trip; call it off the GUI thread. Errors: as
/// Workspace::session(), the command failed, or the guest's answer is not an uptime.
Expected<std::chrono::steady_clock::time_point> readWorkspaceBoot(Workspace& workspace);

/// The first field of /proc/uptime ("4711.25 9320.11\n") in ms; nullopt for anything else
/// (the text comes from the guest).
std::optional<std::chrono::milliseconds> parseProcUptime(QByteArrayView text);

} // namespace sbw
