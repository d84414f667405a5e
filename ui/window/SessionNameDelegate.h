#pragma once

#include <QStyledItemDelegate>

namespace sbw {

/// Paints the session list's name cell: the name, and under it, smaller and dimmed, the text of
/// the model's SessionListModel::kOriginRole when there is one (a fork's "fork of web"), so the
/// origin shows at any width of the list. Both lines are elided in the middle, as the names are.
class SessionNameDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    /// The font of the origin line: the cell's, a size smaller.
    static QFont originFont(const QFont& cellFont);
};

} // namespace sbw
