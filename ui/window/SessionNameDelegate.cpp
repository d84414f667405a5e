#include "window/SessionNameDelegate.h"

#include "window/SessionListModel.h"

#include <QApplication>
#include <QPainter>

namespace sbw {
namespace {

/// Pixels under the origin line, so it does not touch the next row.
constexpr int kGap = 2;

QString originOf(const QModelIndex& index)
{
    return index.data(SessionListModel::kOriginRole).toString();
}

} // namespace

QFont SessionNameDelegate::originFont(const QFont& cellFont)
{
    QFont font = cellFont;
    font.setPointSizeF(cellFont.pointSizeF() * 0.85);
    return font;
}

QSize SessionNameDelegate::sizeHint(const QStyleOptionViewItem& option,
                                    const QModelIndex& index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    const QString origin = originOf(index);
    if (origin.isEmpty())
        return size;
    const QFontMetrics metrics(originFont(option.font));
    size.setHeight(size.height() + metrics.height() + kGap);
    size.setWidth(
        std::max(size.width(), metrics.horizontalAdvance(origin) + 2 * metrics.averageCharWidth()));
    return size;
}

void SessionNameDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                const QModelIndex& index) const
{
    const QString origin = originOf(index);
    if (origin.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // The name as the view would paint it, in the upper part; the row's background and
    // selection across the whole cell.
    QStyleOptionViewItem item = option;
    initStyleOption(&item, index);
    const QFont small = originFont(item.font);
    const int originHeight = QFontMetrics(small).height();
    QStyle* style = item.widget ? item.widget->style() : QApplication::style();
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &item, painter, item.widget);
    QStyleOptionViewItem name = item;
    name.rect.setBottom(item.rect.bottom() - originHeight - kGap);
    name.backgroundBrush = Qt::NoBrush;
    name.state &= ~QStyle::State_HasFocus;
    style->drawControl(QStyle::CE_ItemViewItem, &name, painter, item.widget);

    // Where CE_ItemViewItem drew the name: its text rectangle less the style's text margin.
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, item.widget) + 1;
    const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &name, item.widget)
                           .adjusted(margin, 0, -margin, 0);
    const QRect line(text.left(), name.rect.bottom() + 1, text.width(), originHeight);
    const bool selected = item.state & QStyle::State_Selected;
    QColor color = item.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    if (!selected)
        color.setAlphaF(0.65); // dimmed: it describes the name above it
    painter->save();
    painter->setFont(small);
    painter->setPen(color);
    painter->drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetrics(small).elidedText(origin, Qt::ElideMiddle, line.width()));
    painter->restore();
}

} // namespace sbw
