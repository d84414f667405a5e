#pragma once

#include "changes/FileChange.h"

#include <QByteArray>

#include <optional>

namespace sbw {

/// Gives `change` its diff from `before` to `after` (nullopt: that content is unknown; a created
/// file's before and a deleted one's after are empty) when it is a text file (no NUL, valid
/// UTF-8) within FileChangeBounds::kMaxDiffFileBytes on both sides, else a diffNote saying why
/// not. Non-files get neither. Runs `diff` (UnifiedDiff): call from a worker thread.
void attachDiff(FileChange& change, const std::optional<QByteArray>& before, const std::optional<QByteArray>& after);

} // namespace sbw
