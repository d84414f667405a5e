#pragma once

#include <QTableView>

namespace sbw {

/// A table read row by row (the command log):
/// - moving to a row scrolls it into view vertically only. A plain QTableView also scrolls
///   sideways to the clicked cell, so clicking a row of a table wider than its view jumped the
///   columns, header and all, away from what was being read;
/// - one readable column (setReadableColumn()) takes the room the others leave, but never
///   less than its minimum: below that the table scrolls sideways instead of squeezing it to
///   "…" (a narrow dock, or more columns shown from the header's menu).
class RowTableView : public QTableView
{
    Q_OBJECT

public:
    explicit RowTableView(QWidget* parent = nullptr);

    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;

    /// Makes `column` the readable one, at least `minimumWidth` pixels wide. The other columns
    /// keep the widths they are given.
    void setReadableColumn(int column, int minimumWidth);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitReadableColumn();

    int m_readable = -1;
    int m_readableMinimum = 0;
    bool m_fitting = false;
};

} // namespace sbw
