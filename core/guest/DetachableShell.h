#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QString>

namespace sbw {

class GuestSession;

/// A login shell in the guest that outlives the SSH connection it was started on: dtach runs
/// it on a pseudo-terminal of its own and keeps it, with its jobs, while no client is attached;
/// a PTY channel (GuestSession::openShell with a command) runs dtach's client attached to it.
/// After the connection broke (hibernate and wake, a lost libvirt connection, a long pause) a
/// new channel attaches again to the same shell.
///
/// Everything of one shell is in /run/sbw-terminals/ID/ in the guest: `socket` (dtach's),
/// `pid` (dtach's master, which holds the shell's terminal) and `exit` (the shell's exit status,
/// written when it ends). /run is memory: a stop and start ends the shell, a revert brings back
/// what the checkpoint had. The ID is random, so shells of several windows never meet.
class DetachableShell
{
public:
    /// Whether the shell is there to attach to.
    enum class Presence
    {
        Running,    ///< attach to it
        Ended,      ///< it ended while no client was attached; exitStatus says how
        Gone,       ///< the guest has no such shell (restarted, or reverted to before it)
        Unsupported ///< the guest has no dtach: the shell was a plain one and ended with its
                    ///< channel
    };
    struct Found
    {
        Presence presence = Presence::Gone;
        int exitStatus = 0; ///< for Ended
    };

    /// A shell with a new random ID (nothing is started yet).
    DetachableShell();

    QString id() const { return m_id; }
    /// Command for a PTY channel: starts the user's login shell under dtach and attaches to it.
    /// The channel's exit status is the shell's. In a guest without dtach it is a plain login
    /// shell.
    QByteArray startCommand() const;
    /// Command for a PTY channel: attaches to the running shell; exit status as startCommand().
    QByteArray attachCommand() const;
    /// Asks the guest whether the shell still runs (one exec; blocks). A shell found Ended is
    /// forgotten in the guest. Errors: the exec failed, an answer not understood.
    Expected<Found> find(GuestSession& session) const;
    /// Ends the shell (dtach's master exits and the shell's terminal hangs up, as when a terminal
    /// window is closed) and removes its files (one exec; blocks). Errors: the exec failed.
    Expected<void> end(GuestSession& session) const;

private:
    /// "D=/run/sbw-terminals/ID\n", the first line of every command.
    QByteArray directoryLine() const;

    QString m_id;
};

} // namespace sbw
