#pragma once

#include "terminal/TerminalScreen.h"

#include <QAbstractScrollArea>
#include <QByteArray>
#include <QByteArrayView>
#include <QFont>
#include <QPoint>
#include <QSize>
#include <QTimer>
#include <array>

namespace sbw {

/// A terminal on libvterm: feed() it what the program writes, send inputReady() bytes to the
/// program, and resize the program's PTY on sizeChanged(). The grid follows the widget's size
/// in cells of the fixed-pitch system font; the vertical scroll bar pages through the
/// scrollback (TerminalScreen::kScrollbackLines lines).
///
/// Mouse: when the program asks for mouse reports (vi's mouse=a, htop), clicks, drags and the
/// wheel go to it, and Shift+drag still selects. Otherwise the wheel scrolls the scrollback,
/// or sends arrow keys on the alternate screen (less, man), as xterm's alternateScroll does.
///
/// Keys: see mapTerminalKey(); the widget keeps Ctrl+Shift+C (copy the selection),
/// Ctrl+Shift+V (paste) and Shift+PgUp/PgDn (scroll the scrollback) for itself and takes every
/// other key, shortcuts included, while it has focus. The mouse selects text (also copied to
/// the X11 selection, which the middle button pastes). Pastes go through
/// TerminalScreen::paste(), so they can only ever type text.
///
/// Untrusted output: see TerminalScreen for what guest sequences cannot do; the title only
/// reaches titleChanged(), meant for a tab label.
class TerminalWidget : public QAbstractScrollArea
{
    Q_OBJECT

public:
    explicit TerminalWidget(QWidget* parent = nullptr);

    /// Program output in (bytes as read from the PTY or console).
    void feed(QByteArrayView bytes);

    int cols() const { return m_screen.cols(); }
    int rows() const { return m_screen.rows(); }
    QString screenText() const { return m_screen.screenText(); }
    QString scrollbackLine(int i) const { return m_screen.scrollbackLine(i); }
    int scrollbackCount() const { return m_screen.scrollbackCount(); }
    const TerminalScreen& screen() const { return m_screen; }

    /// The selected text, lines joined by '\n' without trailing blanks; empty without selection.
    QString selectedText() const;

    /// Size of one cell in pixels.
    QSize cellSize() const { return m_cell; }
    QSize sizeHint() const override; ///< 80 × 24 cells

public Q_SLOTS:
    void copy();
    /// Pastes the clipboard's text.
    void paste();

Q_SIGNALS:
    /// Bytes the user typed or pasted, and the terminal's answers to queries: for the PTY.
    void inputReady(const QByteArray& bytes);
    /// The grid changed to `cols` × `rows` cells (the PTY's window-change).
    void sizeChanged(int cols, int rows);
    /// The program set its title (sanitised, at most kMaxTerminalTitleChars characters).
    void titleChanged(const QString& title);

protected:
    bool event(QEvent* event) override;
    bool focusNextPrevChild(bool) override { return false; }
    void keyPressEvent(QKeyEvent* event) override;
    void inputMethodEvent(QInputMethodEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void onScreenChanged();
    void updateGrid();
    void scrollToBottom();
    void pasteText(const QString& text);
    /// (col, line) of the cell under a viewport position.
    QPoint cellAt(QPoint position) const;
    bool isSelected(int line, int col) const;
    /// True when mouse events go to the program: it asked for them and Shift is not held.
    bool reportsMouse(Qt::KeyboardModifiers modifiers) const;
    /// Reports a mouse button at `position` to the program (see TerminalScreen).
    void reportMouseButton(QPointF position, int button, bool pressed,
                           Qt::KeyboardModifiers modifiers);
    void paintLine(QPainter& painter, int line, int y);

    TerminalScreen m_screen;
    QTimer m_repaint;              ///< coalesces repaints after output
    bool m_followingOutput = false; ///< the scroll bar follows new output (onScreenChanged())
    std::array<QFont, 16> m_fonts; ///< the fixed-pitch font with bold 1, italic 2, underline 4,
                                   ///< strike-out 8
    QSize m_cell;
    int m_ascent = 0;
    bool m_selecting = false;
    bool m_hasSelection = false;
    QPoint m_selectionAnchor; ///< (col, line) where the selection started
    QPoint m_selectionEnd;    ///< (col, line) where it ends (before or after the anchor)
};

} // namespace sbw
