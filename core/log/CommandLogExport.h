#pragma once

#include "action/ActionRecord.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

namespace sbw {

/// Exports of command-log rows (CommandLog::rows()) for the log pane and `sbw log`.
///
/// JSON Lines: one object per row and line, UTF-8, keys as in toJson(). CSV: RFC 4180 (comma,
/// CRLF, double quotes), a header line with the same names, UTF-8. A CSV cell that starts with
/// '=', '+', '-', '@', tab or carriage return gets a leading apostrophe so that a spreadsheet
/// shows a logged command instead of evaluating it as a formula (commands come from agents).
/// Times are ISO 8601 UTC with milliseconds; absent values are JSON null / empty cells.

/// One row as a JSON object: id, started, ended, sandbox, actor, actor_name, action, command,
/// workdir, exit_status, signal, outcome, error, duration_ms, stdout_bytes, stderr_bytes,
/// stdout_capped, stderr_capped, approval, approver, and for network rows network_address (the
/// server's address; empty otherwise), bytes_sent and bytes_received (0 otherwise),
/// file_changes_summary (FileChanges::summary(); empty for rows without tracking) and
/// file_changes (fileChangesReport(): the listed files, with diffs when the record has them, as
/// from CommandLog::row(); CSV has the summary only).
QJsonObject toJson(const ActionRecord& record);
QByteArray toJsonLines(const QList<ActionRecord>& records);
QByteArray toCsv(const QList<ActionRecord>& records);

} // namespace sbw
