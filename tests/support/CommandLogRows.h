#pragma once

#include "log/CommandLog.h"

#include <QByteArray>
#include <QString>
#include <optional>

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

/// A row of the command log with what its command wrote to stdout.
struct LoggedRow
{
    ActionRecord row;
    QByteArray stdoutText;
};

/// The newest row of `sandbox` in the command log at CommandLog::defaultPath() (where the
/// programs under test write), or nullopt when the log cannot be read or has no such row.
std::optional<LoggedRow> newestRow(const QString& sandbox);

} // namespace sbw::test
