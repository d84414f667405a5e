#pragma once

#include "base/Expected.h"

#include <QString>

namespace sbw {

class GuestSession;

/// `path` without `.` and `..` components and repeated or trailing `/`, by its text alone
/// (`/root//a/./b/../c/` → `/root/a/c`; `..` at the root stays at the root). Errors: the path
/// is not absolute, or holds a NUL.
Expected<QString> normalisedGuestPath(const QString& path);

/// Where `path` (absolute) leads in the guest: every symlink of its existing part followed,
/// `.`, `..` and repeated `/` resolved, and for a file that does not exist yet its deepest
/// existing folder resolved and the rest appended. Runs `realpath -m -z -- PATH` in the guest
/// (GNU coreutils) over one exec on `session`: one round trip of about 0.1 s, where walking the
/// path with SFTP lstat/readlink would take one per component, and SFTP's REALPATH
/// (sftp_canonicalize_path) fails for paths that do not exist. The guest's answer is checked
/// (absolute, already normalised, at most 4096 bytes); a lying guest can only name another
/// path of its own. Blocks (call on a worker thread). Errors: the session broke, realpath
/// failed (a symlink loop: its message), an answer that is not a path.
Expected<QString> resolveGuestPath(GuestSession& session, const QString& path);

} // namespace sbw
