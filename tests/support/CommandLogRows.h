#pragma once

#include "CommandLog.h"

#include <QByteArray>
#include <QString>

namespace sbw::test {

/// Writes a finished exec's row into `log` as a command leaves it: begun with `start`, then
/// `output` on `stream`, then ended with `exitStatus` (outcome succeeded for 0, failed for any
/// other). Returns the row's id. A log that refuses a step fails the test program (Expected::
/// value() on an error).
qint64 logExec(CommandLog& log, const ActionStart& start, OutputStream stream, const QByteArray& output,
               int exitStatus);

/// Writes a person's decision into `log`: `actor` asked for "exec: make install" in
/// `sandbox`, and alice approved it `waitedMs` ms later (the row spans that wait, so its
/// duration is at least `waitedMs`). Returns the row's id; fails like logExec().
qint64 logApproval(CommandLog& log, const QString& sandbox, const Actor& actor, qint64 waitedMs);

} // namespace sbw::test
