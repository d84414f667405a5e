#pragma once

class QAbstractItemView;
class QHeaderView;

namespace sbw {

/// Keeps the text of every visible section of `header` (the column header of `view`) whole:
/// Interactive sections are widened to their text, and `view` is made at least as wide as the
/// visible sections (a Stretch section counting its text) and a vertical scroll bar, so that a
/// Stretch section is never squeezed below its text in a narrow dock. Call it again after a
/// section is shown, hidden or resized by the program.
void keepHeadersWhole(QAbstractItemView* view, QHeaderView* header);

} // namespace sbw
