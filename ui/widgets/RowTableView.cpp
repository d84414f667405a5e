#include "widgets/RowTableView.h"

#include <QScrollBar>

namespace sbw {

void RowTableView::scrollTo(const QModelIndex& index, ScrollHint hint)
{
    const int column = horizontalScrollBar()->value();
    QTableView::scrollTo(index, hint);
    horizontalScrollBar()->setValue(column);
}

} // namespace sbw
