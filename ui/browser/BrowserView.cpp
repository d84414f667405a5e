#include "browser/BrowserView.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

namespace sbw {
namespace {

/// BrowserPage's name of a key that types no text, or empty.
QString keyName(int key)
{
    switch (key) {
    case Qt::Key_Return:
    case Qt::Key_Enter: return QStringLiteral("Enter");
    case Qt::Key_Tab: return QStringLiteral("Tab");
    case Qt::Key_Backspace: return QStringLiteral("Backspace");
    case Qt::Key_Delete: return QStringLiteral("Delete");
    case Qt::Key_Escape: return QStringLiteral("Escape");
    case Qt::Key_Up: return QStringLiteral("ArrowUp");
    case Qt::Key_Down: return QStringLiteral("ArrowDown");
    case Qt::Key_Left: return QStringLiteral("ArrowLeft");
    case Qt::Key_Right: return QStringLiteral("ArrowRight");
    case Qt::Key_Home: return QStringLiteral("Home");
    case Qt::Key_End: return QStringLiteral("End");
    case Qt::Key_PageUp: return QStringLiteral("PageUp");
    case Qt::Key_PageDown: return QStringLiteral("PageDown");
    default: return {};
    }
}

} // namespace

BrowserView::BrowserView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("browserView"));
    setFocusPolicy(Qt::NoFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void BrowserView::setFrame(const QImage& frame, const QSizeF& pageSize)
{
    m_frame = frame;
    m_pageSize = pageSize.isEmpty() ? QSizeF(frame.size()) : pageSize;
    update();
}

QRectF BrowserView::frameRect() const
{
    if (m_frame.isNull())
        return {};
    const QSizeF fitted = QSizeF(m_frame.size()).scaled(QSizeF(size()), Qt::KeepAspectRatio);
    return {QPointF((width() - fitted.width()) / 2, (height() - fitted.height()) / 2), fitted};
}

void BrowserView::setInteractive(bool interactive)
{
    m_interactive = interactive;
    setFocusPolicy(interactive ? Qt::StrongFocus : Qt::NoFocus);
    setCursor(interactive ? Qt::PointingHandCursor : Qt::ArrowCursor);
    if (interactive)
        setFocus(Qt::OtherFocusReason);
    update();
}

void BrowserView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Dark));
    if (m_frame.isNull())
        return;
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    const QRectF target = frameRect();
    painter.drawImage(target, m_frame);
    if (m_interactive) {
        // A frame in the highlight colour says the person's input goes to the page.
        painter.setPen(QPen(palette().color(QPalette::Highlight), 3));
        painter.drawRect(target.adjusted(1, 1, -1, -1));
    }
}

void BrowserView::mousePressEvent(QMouseEvent* event)
{
    const QRectF target = frameRect();
    if (!m_interactive || event->button() != Qt::LeftButton || !target.contains(event->position()))
        return QWidget::mousePressEvent(event);
    const QPointF inFrame = event->position() - target.topLeft();
    Q_EMIT clicked({inFrame.x() * m_pageSize.width() / target.width(), inFrame.y() * m_pageSize.height() / target.height()});
}

void BrowserView::keyPressEvent(QKeyEvent* event)
{
    if (!m_interactive)
        return QWidget::keyPressEvent(event);
    if (const QString name = keyName(event->key()); !name.isEmpty())
        return Q_EMIT keyPressed(name);
    // Shortcuts (Ctrl, Meta) stay the window's; text of a plain or shifted key goes to the page.
    const QString text = event->text();
    if (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier) || text.isEmpty() || !text.at(0).isPrint())
        return QWidget::keyPressEvent(event);
    Q_EMIT typed(text);
}

bool BrowserView::focusNextPrevChild(bool next)
{
    return m_interactive ? false : QWidget::focusNextPrevChild(next);
}

} // namespace sbw
