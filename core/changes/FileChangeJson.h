#pragma once

#include "changes/FileChange.h"

#include <QJsonArray>
#include <QJsonObject>

namespace sbw {

/// One listed file as JSON, for MCP results and `sbw log --json`: path, change (created,
/// modified, deleted), type (file, folder, symlink, …), size_before and size_after (null where
/// it did not exist), diff (the unified diff; only when `withDiff` and there is one), has_diff,
/// diff_note.
QJsonObject fileChangeJson(const FileChange& change, bool withDiff);
QJsonArray fileChangesJson(const FileChanges& changes, bool withDiff);
/// The whole record: state ("known", "unknown", "not tracked"), summary (FileChanges::summary()),
/// unknown (why), folders, created, modified, deleted, not_listed, files.
QJsonObject fileChangesReport(const FileChanges& changes, bool withDiffs);

} // namespace sbw
