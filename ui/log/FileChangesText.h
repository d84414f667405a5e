#pragma once

#include "changes/FileChange.h"

#include <QString>

namespace sbw {

/// The detail view's section of a row's file changes: a heading with the summary, one line per
/// listed file (change, type, size before → after, path, why it has no diff), how many more
/// were not listed, then each diff. Names are shown with visibleName() (a newline in a name is
/// "\n"), diffs with their hidden characters made visible. Empty when the row is not tracked.
QString fileChangesText(const FileChanges& changes);

} // namespace sbw
