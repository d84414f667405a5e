#pragma once

#include <QStringList>

namespace sbw {

/// `sbw log [--sandbox NAME] [--actor person|agent|cli] [--status OUTCOME] [--search TEXT]
/// [--limit N] [--json | --csv] [--output ID --stream stdout|stderr]`: prints rows of the
/// command log (CommandLog::defaultPath()), newest first: a table (text from guests and agents
/// with control characters escaped and line breaks as "⏎" followed by a "(+N lines)" marker,
/// oneLineVisible(); columns as wide as their content up to a cap, longer cells cut with "…";
/// APPROVAL gives the decision, and for approval rows the wait in ms), JSON Lines or CSV
/// (CommandLogExport), or the kept output of one row, byte for byte. Exit status 0; 2 for usage
/// errors; 125 when the log cannot be read.
int logCommand(QStringList arguments);

} // namespace sbw
