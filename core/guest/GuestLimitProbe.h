#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QString>

namespace sbw {

class GuestSession;

/// What a guest says about its memory and disk after a script ended: whether its kernel's OOM
/// killer ran, and how much of the root file system is left. A fresh guest of an ephemeral run
/// has no OOM kill before its script, so any kill counted here happened during the script.
struct GuestLimitReport
{
    int oomKills = 0; ///< processes the guest kernel's OOM killer ended since boot (/proc/vmstat)
    /// The last victim as "python3 (pid 231)", from the kernel's "Out of memory: Killed process"
    /// line; characters other than letters, digits and ._+- are shown as '?'. Empty when none.
    QString oomVictim;
    /// When the kernel logged that kill, seconds since the guest's boot (the line's timestamp);
    /// -1 when unknown.
    double oomVictimAtSeconds = -1;
    double uptimeSeconds = -1; ///< the guest's /proc/uptime when asked; -1 when unknown
    qint64 rootBytes = -1;          ///< size of / (statfs f_blocks × f_bsize); -1 when unknown
    qint64 rootAvailableBytes = -1; ///< what root can still write to / (f_bavail × f_bsize)

    /// Whether / is full: under kRootFullBytes left. ext4 keeps a reserve for its own metadata
    /// even from root (f_bavail leaves it out), so a full disk shows f_bavail close to 0.
    bool rootFull() const;
    /// Whether the OOM killer's last kill was logged within the last `seconds` (plus 2 s for the
    /// probe's own start): how a long-running workspace, whose kill count covers every earlier
    /// command, tells that a command it just ran met the memory limit.
    bool oomKillWithin(double seconds) const;
    static constexpr qint64 kRootFullBytes = 4 << 20;
};

/// The shell command that prints the report's facts, one per line: "oom_kill N" (from
/// /proc/vmstat), the kernel's last "Out of memory: Killed process …" line if any (with its
/// "[SECONDS]" timestamp), "root BLOCKS AVAILABLE BLOCKSIZE" (stat -f /) and "uptime SECONDS".
QByteArray guestLimitProbeCommand();

/// Parses what guestLimitProbeCommand() printed; facts it lacks keep their defaults.
GuestLimitReport parseGuestLimitReport(QByteArrayView output);

/// Runs guestLimitProbeCommand() on `session` (one command channel; 0.3–0.6 s under TCG).
/// Errors: as GuestSession::exec.
Expected<GuestLimitReport> probeGuestLimits(GuestSession& session);

} // namespace sbw
