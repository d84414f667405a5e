#pragma once

#include "approval/ShellSyntax.h"

#include <QList>
#include <QString>

namespace sbw {

/// The scripts that awk and sed take as arguments, read for what the approval policy cannot
/// see: commands they start. Both return why `PROGRAM ARGUMENTS` may run commands the policy
/// does not see, or an empty string when the script is on the command line as literal text
/// and starts none. Over-approximations: a script that only looks like it starts one is asked
/// too (e.g. an awk regular expression with `|`).

/// awk (gawk, mawk, nawk): asked when the program is read from a file (`-f`, `-E`, `-i`, `-l`),
/// has expansions, or calls system(), pipes to or from a command (`|`), or loads an extension
/// (`@load`).
QString awkUnseenReason(const QList<ShellWord>& arguments);

/// sed: asked when the script is read from a file (`-f`), has expansions, or uses GNU sed's
/// `e` command or the `e` flag of `s`, which run shell commands.
QString sedUnseenReason(const QList<ShellWord>& arguments);

} // namespace sbw
