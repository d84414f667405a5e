#pragma once

#include <QTableView>

namespace sbw {

/// A table read row by row (the command log): moving to a row scrolls it into view vertically
/// only. A plain QTableView also scrolls sideways to the clicked cell, so clicking a row of a
/// table wider than its view jumped the columns, header and all, away from what was being read.
class RowTableView : public QTableView
{
    Q_OBJECT

public:
    using QTableView::QTableView;

    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
};

} // namespace sbw
