#pragma once

#include "base/Expected.h"

#include <QByteArray>

namespace sbw {

class GuestSession;

/// What makes a sandbox restored from a saved state (Sandbox::restore) its own before anything
/// else runs in it: every clone of one state starts with the same random pool, clock and boot
/// id (ARCHITECTURE.md, "Clones of one saved state"). One command over the SSH session, with
/// 64 bytes from the host's system random generator:
/// - credits them to the guest's pool (RNDADDENTROPY) and reseeds its CRNG (RNDRESEEDCRNG), so
///   /dev/urandom, getrandom() and /proc/sys/kernel/random/uuid differ from every other clone's;
/// - sets the guest's clock to the host's (clock_settime; the saved clock is the save's);
/// - binds a new UUID over /proc/sys/kernel/random/boot_id.
/// Errors: the command failed or said anything (then the sandbox must not be used).
Expected<void> freshenGuest(GuestSession& session);

/// The command freshenGuest() runs (a perl script on its stdin), for `seed` (64 bytes), the
/// host's time and a boot id.
QByteArray freshenCommand(const QByteArray& seed, qint64 seconds, qint64 nanoseconds, const QString& bootId);

} // namespace sbw
