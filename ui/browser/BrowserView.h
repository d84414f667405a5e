#pragma once

#include <QImage>
#include <QWidget>

namespace sbw {

/// The page of a workspace's browser as a picture: the latest frame (a screencast frame or a
/// screenshot) scaled to fit, nothing else from the guest. While interactive (a person has
/// taken the browser over) a left click and the keys typed become signals in the page's terms
/// (CSS pixels of the viewport, BrowserPage's key names); otherwise input is ignored.
class BrowserView : public QWidget
{
    Q_OBJECT

public:
    explicit BrowserView(QWidget* parent = nullptr);

    /// Shows `frame`, a picture of the viewport whose size in CSS pixels is `pageSize`.
    void setFrame(const QImage& frame, const QSizeF& pageSize);
    QImage frame() const { return m_frame; }
    /// Where the frame is drawn, in the view's coordinates.
    QRectF frameRect() const;

    void setInteractive(bool interactive);
    bool isInteractive() const { return m_interactive; }

    QSize sizeHint() const override { return {640, 400}; }

Q_SIGNALS:
    /// A left click at `point`, CSS pixels of the page's viewport.
    void clicked(QPointF point);
    /// Printable text typed (one key press's text).
    void typed(const QString& text);
    /// A key with a name (Enter, Tab, Backspace, ArrowLeft, …).
    void keyPressed(const QString& key);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    /// Tab and Backtab go to the page while interactive, not to the next widget.
    bool focusNextPrevChild(bool next) override;

private:
    QImage m_frame;
    QSizeF m_pageSize;
    bool m_interactive = false;
};

} // namespace sbw
