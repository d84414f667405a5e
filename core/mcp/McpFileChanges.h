#pragma once

#include "changes/FileChange.h"
#include "mcp/McpTool.h"

#include <QJsonObject>

namespace sbw::mcp {

/// An exec's or run_code's file changes in its reply: `files_changed` (the listed files with
/// their diffs, structuredContent only: diffs can be long) and `files_changed_summary` (one line,
/// also in the text block: "3 files changed (1 created, 1 modified, 1 deleted)", how many were
/// not listed, or why the changes are unknown); the row's end gets them too.
void addFileChanges(McpToolResult& result, const FileChanges& changes);
/// `schema` (an object schema) with those two properties, required.
QJsonObject withFileChangesSchema(QJsonObject schema);

} // namespace sbw::mcp
