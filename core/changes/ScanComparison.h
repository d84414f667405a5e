#pragma once

#include "changes/FileChange.h"
#include "changes/ScanEntry.h"

#include <QList>

namespace sbw {

/// The entries created, modified and deleted from `before` to `after`, by path, the first
/// `maxListed` of them listed (without diffs) and all of them counted. Either side may be a
/// whole scan or only the records that differ (what `comm -3` leaves): entries equal on both
/// sides are unchanged either way. A path seen twice on one side keeps its last record.
FileChanges compareScans(const QList<ScanEntry>& before, const QList<ScanEntry>& after, int maxListed);

} // namespace sbw
