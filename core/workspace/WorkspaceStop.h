#pragma once

#include "base/Expected.h"

#include <QString>
#include <optional>

namespace sbw {

class LoggedAction;

/// How the host asked a guest to power off (Workspace::stop()).
enum class StopRequest
{
    GuestAgent, ///< qemu-ga's guest-shutdown (virDomainShutdownFlags, GUEST_AGENT)
    Ssh,        ///< `sync` over the workspace's SSH session, then the guest's `poweroff`
};

/// How a stop ended. Graceful: the guest powered itself off before the grace period ended (its
/// shutdown syncs the disk and remounts / read-only first, see packaging/guest/README.md).
/// Forced: the domain was destroyed (virDomainDestroy) at the end of the grace period, like
/// pulling the plug; what the guest had not written to its disk yet is lost.
struct StopOutcome
{
    bool forced = false;
    /// How the guest was asked; none when nothing answered in time, or when it powered off
    /// before it was asked (then not forced).
    std::optional<StopRequest> request;
    bool synced = false;     ///< the guest's `sync` returned 0 over SSH before it was asked
    qint64 elapsedMs = 0;    ///< from the call to the domain being off
    qint64 graceSeconds = 0; ///< the grace period given
    /// Why the guest could not be asked in time (the last refusal: agent not connected, SSH
    /// not ready …); empty when it was asked.
    QString unasked;

    /// One line for a person, e.g. "shut down cleanly in 3.4 s (asked over SSH after a sync)",
    /// "forced off after 30 s: the guest did not shut down; writes it had not flushed may be
    /// lost (asked through its guest agent)", or for a grace of 0 "forced off at once (grace
    /// 0 s): the guest was not asked to shut down; writes it had not flushed may be lost".
    QString summary() const;
};

/// Completes the command-log row of a stop: the outcome's summary() as the row's stdout, and
/// Succeeded when the guest shut down cleanly, Failed with the summary as error when it was
/// forced off, Error with the message when the stop failed.
void finishStopAction(LoggedAction& action, const Expected<StopOutcome>& outcome);

} // namespace sbw
