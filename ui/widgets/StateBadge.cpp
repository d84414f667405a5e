#include "widgets/StateBadge.h"

#include <QPainter>
#include <QPixmap>

namespace sbw {

QColor stateColor(WorkspaceState state)
{
    switch (state) {
    case WorkspaceState::Running:
        return QColor(0x2e, 0xa0, 0x43);
    case WorkspaceState::Starting:
        return QColor(0x8b, 0xc3, 0x4a);
    case WorkspaceState::Paused:
        return QColor(0xe6, 0xa1, 0x17);
    case WorkspaceState::Hibernated:
        return QColor(0x3b, 0x7d, 0xd8);
    case WorkspaceState::Stopped:
        return QColor(0x9e, 0x9e, 0x9e);
    case WorkspaceState::Crashed:
        return QColor(0xd3, 0x2f, 0x2f);
    case WorkspaceState::Unknown:
        break;
    }
    return QColor(0x61, 0x61, 0x61);
}

QIcon stateBadge(WorkspaceState state)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(stateColor(state).darker(130));
    painter.setBrush(stateColor(state));
    painter.drawEllipse(QRectF(1, 1, 10, 10));
    return QIcon(pixmap);
}

} // namespace sbw
