#include "widgets/RowTableView.h"

#include <QHeaderView>
#include <QScrollBar>

namespace sbw {

RowTableView::RowTableView(QWidget* parent) : QTableView(parent)
{
    // A column shown, hidden or resized changes the room the readable one has.
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column) {
        if (column != m_readable)
            fitReadableColumn();
    });
}

void RowTableView::scrollTo(const QModelIndex& index, ScrollHint hint)
{
    const int column = horizontalScrollBar()->value();
    QTableView::scrollTo(index, hint);
    horizontalScrollBar()->setValue(column);
}

void RowTableView::setReadableColumn(int column, int minimumWidth)
{
    m_readable = column;
    m_readableMinimum = minimumWidth;
    fitReadableColumn();
}

void RowTableView::resizeEvent(QResizeEvent* event)
{
    QTableView::resizeEvent(event);
    fitReadableColumn();
}

void RowTableView::fitReadableColumn()
{
    QHeaderView* header = horizontalHeader();
    if (m_readable < 0 || m_fitting || header->isSectionHidden(m_readable))
        return;
    m_fitting = true;
    int others = 0;
    for (int column = 0; column < header->count(); ++column)
        if (column != m_readable && !header->isSectionHidden(column))
            others += header->sectionSize(column);
    if (viewport()->width() - others >= m_readableMinimum) {
        header->setSectionResizeMode(m_readable, QHeaderView::Stretch);
    } else {
        header->setSectionResizeMode(m_readable, QHeaderView::Interactive);
        header->resizeSection(m_readable, m_readableMinimum);
    }
    m_fitting = false;
}

} // namespace sbw
