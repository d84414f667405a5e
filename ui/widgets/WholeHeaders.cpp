#include "widgets/WholeHeaders.h"

#include <QAbstractItemView>
#include <QHeaderView>
#include <QStyle>
#include <algorithm>

namespace sbw {

void keepHeadersWhole(QAbstractItemView* view, QHeaderView* header)
{
    int sections = 0;
    for (int section = 0; section < header->count(); ++section) {
        if (header->isSectionHidden(section))
            continue;
        // The header's own measure: text, margins and sort indicator (sizeFromContents).
        const int text = header->sectionSizeHint(section);
        const QHeaderView::ResizeMode mode = header->sectionResizeMode(section);
        if (mode == QHeaderView::Interactive && header->sectionSize(section) < text)
            header->resizeSection(section, text);
        // A Stretch section takes what is left: it needs its text; the others keep their width.
        const bool stretches =
            mode == QHeaderView::Stretch ||
            (header->stretchLastSection() && section == header->logicalIndex(header->count() - 1));
        sections += stretches ? text : std::max(text, header->sectionSize(section));
    }
    // The scroll bar appears with the rows, and takes its width from the Stretch section.
    const int scrollBar = view->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, view);
    view->setMinimumWidth(sections + scrollBar + 2 * view->frameWidth());
}

} // namespace sbw
