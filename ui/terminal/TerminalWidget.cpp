#include "terminal/TerminalWidget.h"

#include "terminal/TerminalText.h"
#include "widgets/MonospaceFont.h"

#include <QApplication>
#include <QClipboard>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QInputMethodEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <utility>

namespace sbw {
namespace {

constexpr int kDefaultCols = 80;
constexpr int kDefaultRows = 24;
/// Output repaints at most this often (ms): painting every chunk of a fast `cat` would cost
/// more than parsing it.
constexpr int kRepaintMs = 16;

/// (line, col) order of two (col, line) points.
bool before(QPoint a, QPoint b)
{
    return a.y() < b.y() || (a.y() == b.y() && a.x() < b.x());
}

/// libvterm's number for a Qt mouse button; 0 for buttons it does not report.
int mouseButton(Qt::MouseButton button)
{
    switch (button) {
    case Qt::LeftButton:
        return 1;
    case Qt::MiddleButton:
        return 2;
    case Qt::RightButton:
        return 3;
    default:
        return 0;
    }
}

int vtermModifiers(Qt::KeyboardModifiers modifiers)
{
    return (modifiers & Qt::ShiftModifier ? VTERM_MOD_SHIFT : 0) |
           (modifiers & Qt::AltModifier ? VTERM_MOD_ALT : 0) |
           (modifiers & Qt::ControlModifier ? VTERM_MOD_CTRL : 0);
}

} // namespace

TerminalWidget::TerminalWidget(QWidget* parent)
    : QAbstractScrollArea(parent), m_screen(kDefaultCols, kDefaultRows)
{
    QFont base = monospaceFont();
    const QFontMetrics metrics(base);
    m_cell = QSize(std::max(1, metrics.horizontalAdvance(QLatin1Char('M'))),
                   std::max(1, metrics.height()));
    m_ascent = metrics.ascent();
    for (size_t style = 0; style < m_fonts.size(); ++style) {
        QFont& font = m_fonts[style];
        font = base;
        font.setBold(style & 1);
        font.setItalic(style & 2);
        font.setUnderline(style & 4);
        font.setStrikeOut(style & 8);
        // Every printable ASCII character advances by exactly one cell, also where the font's
        // advance is fractional or its bold face is wider, so that runs of them stay on the grid.
        const qreal advance = QFontMetricsF(font).horizontalAdvance(QLatin1Char('M'));
        font.setLetterSpacing(QFont::AbsoluteSpacing, m_cell.width() - advance);
    }

    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_InputMethodEnabled);
    viewport()->setCursor(Qt::IBeamCursor);
    viewport()->setAutoFillBackground(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    verticalScrollBar()->setRange(0, 0);

    connect(&m_screen, &TerminalScreen::outputReady, this, &TerminalWidget::inputReady);
    connect(&m_screen, &TerminalScreen::titleChanged, this, &TerminalWidget::titleChanged);
    connect(&m_screen, &TerminalScreen::changed, this, &TerminalWidget::onScreenChanged);
    m_repaint.setSingleShot(true);
    m_repaint.setInterval(kRepaintMs);
    connect(&m_repaint, &QTimer::timeout, viewport(), qOverload<>(&QWidget::update));
    connect(&m_screen, &TerminalScreen::bell, this, [] { QApplication::beep(); });
}

QSize TerminalWidget::sizeHint() const
{
    const int frame = 2 * frameWidth();
    return {kDefaultCols * m_cell.width() + verticalScrollBar()->sizeHint().width() + frame,
            kDefaultRows * m_cell.height() + frame};
}

void TerminalWidget::feed(QByteArrayView bytes)
{
    m_screen.feed(bytes);
}

void TerminalWidget::onScreenChanged()
{
    QScrollBar* bar = verticalScrollBar();
    const bool following = bar->value() == bar->maximum();
    bar->setRange(0, m_screen.scrollbackCount());
    bar->setPageStep(m_screen.rows());
    if (following) {
        // Scrolling to follow the output is painted by the repaint timer like the output
        // itself, not at once by scrollContentsBy(): a fast `cat` scrolls with every chunk.
        m_followingOutput = true;
        bar->setValue(bar->maximum());
        m_followingOutput = false;
    }
    if (!m_repaint.isActive())
        m_repaint.start();
}

void TerminalWidget::updateGrid()
{
    // The screen keeps its own minimum size; the guest's PTY gets the size it took.
    if (m_screen.resize(viewport()->width() / m_cell.width(), viewport()->height() / m_cell.height()))
        Q_EMIT sizeChanged(m_screen.cols(), m_screen.rows());
}

void TerminalWidget::scrollToBottom()
{
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

void TerminalWidget::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateGrid();
}

void TerminalWidget::scrollContentsBy(int, int)
{
    if (!m_followingOutput)
        viewport()->update();
}

bool TerminalWidget::event(QEvent* event)
{
    // Keys belong to the program in the terminal, not to the window's shortcuts, except the
    // window's Ctrl+Shift ones.
    if (event->type() == QEvent::ShortcutOverride) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (!isWindowShortcutKey(key->key(), key->modifiers())) {
            event->accept();
            return true;
        }
    }
    return QAbstractScrollArea::event(event);
}

void TerminalWidget::keyPressEvent(QKeyEvent* event)
{
    const Qt::KeyboardModifiers modifiers = event->modifiers() & ~Qt::KeypadModifier;
    if (modifiers == (Qt::ControlModifier | Qt::ShiftModifier)) {
        if (event->key() == Qt::Key_C)
            return copy();
        if (event->key() == Qt::Key_V)
            return paste();
    }
    if (modifiers == Qt::ShiftModifier &&
        (event->key() == Qt::Key_PageUp || event->key() == Qt::Key_PageDown)) {
        const int step = event->key() == Qt::Key_PageUp ? -m_screen.rows() : m_screen.rows();
        verticalScrollBar()->setValue(verticalScrollBar()->value() + step);
        return;
    }
    const TerminalKeyInput input = mapTerminalKey(event->key(), modifiers, event->text());
    if (input.kind == TerminalKeyInput::Kind::None) {
        event->ignore();
        return;
    }
    scrollToBottom();
    m_screen.sendKey(input);
}

void TerminalWidget::inputMethodEvent(QInputMethodEvent* event)
{
    if (!event->commitString().isEmpty()) {
        TerminalKeyInput input;
        input.kind = TerminalKeyInput::Kind::Bytes;
        input.bytes = neutralisedPaste(event->commitString());
        m_screen.sendKey(input);
    }
    event->accept();
}

void TerminalWidget::copy()
{
    const QString text = selectedText();
    if (!text.isEmpty())
        QGuiApplication::clipboard()->setText(text);
}

void TerminalWidget::paste()
{
    pasteText(QGuiApplication::clipboard()->text());
}

void TerminalWidget::pasteText(const QString& text)
{
    if (text.isEmpty())
        return;
    scrollToBottom();
    m_screen.paste(text);
}

QPoint TerminalWidget::cellAt(QPoint position) const
{
    const int col = std::clamp(position.x() / m_cell.width(), 0, m_screen.cols() - 1);
    const int row = std::clamp(position.y() / m_cell.height(), 0, m_screen.rows() - 1);
    return {col, verticalScrollBar()->value() + row};
}

bool TerminalWidget::isSelected(int line, int col) const
{
    if (!m_hasSelection)
        return false;
    auto [first, last] = std::minmax(m_selectionAnchor, m_selectionEnd, before);
    const QPoint cell(col, line);
    return !before(cell, first) && !before(last, cell);
}

QString TerminalWidget::selectedText() const
{
    if (!m_hasSelection)
        return {};
    auto [first, last] = std::minmax(m_selectionAnchor, m_selectionEnd, before);
    QStringList lines;
    for (int line = first.y(); line <= last.y(); ++line) {
        const int from = line == first.y() ? first.x() : 0;
        const int to = line == last.y() ? last.x() : m_screen.cols() - 1;
        QString text;
        for (int col = from; col <= to; ++col) {
            const TerminalCell cell = m_screen.lineCell(line, col);
            if (cell.width != 0)
                text.append(cell.text.isEmpty() ? QStringLiteral(" ") : cell.text);
        }
        while (text.endsWith(QLatin1Char(' ')))
            text.chop(1);
        lines.append(text);
    }
    return lines.join(QLatin1Char('\n'));
}

bool TerminalWidget::reportsMouse(Qt::KeyboardModifiers modifiers) const
{
    return m_screen.mouseReporting() && !(modifiers & Qt::ShiftModifier);
}

void TerminalWidget::reportMouseButton(QPointF position, int button, bool pressed,
                                       Qt::KeyboardModifiers modifiers)
{
    const QPoint cell = cellAt(position.toPoint());
    const int row = cell.y() - m_screen.scrollbackCount();
    if (row >= 0) // not over the scrollback
        m_screen.sendMouseButton(row, cell.x(), button, pressed, vtermModifiers(modifiers));
}

void TerminalWidget::mousePressEvent(QMouseEvent* event)
{
    if (reportsMouse(event->modifiers())) {
        if (const int button = mouseButton(event->button()))
            reportMouseButton(event->position(), button, true, event->modifiers());
        return;
    }
    if (event->button() == Qt::LeftButton) {
        m_selecting = true;
        m_hasSelection = false;
        m_selectionAnchor = m_selectionEnd = cellAt(event->position().toPoint());
        viewport()->update();
    } else if (event->button() == Qt::MiddleButton) {
        pasteText(QGuiApplication::clipboard()->text(QClipboard::Selection));
    }
}

void TerminalWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (reportsMouse(event->modifiers()) && !m_selecting) {
        const QPoint cell = cellAt(event->position().toPoint());
        if (cell.y() >= m_screen.scrollbackCount())
            m_screen.sendMouseMove(cell.y() - m_screen.scrollbackCount(), cell.x(),
                                   vtermModifiers(event->modifiers()));
        return;
    }
    if (!m_selecting)
        return;
    m_selectionEnd = cellAt(event->position().toPoint());
    m_hasSelection = m_selectionEnd != m_selectionAnchor || m_hasSelection;
    viewport()->update();
}

void TerminalWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (reportsMouse(event->modifiers()) && !m_selecting) {
        if (const int button = mouseButton(event->button()))
            reportMouseButton(event->position(), button, false, event->modifiers());
        return;
    }
    if (event->button() != Qt::LeftButton || !m_selecting)
        return;
    m_selecting = false;
    QClipboard* clipboard = QGuiApplication::clipboard();
    if (m_hasSelection && clipboard->supportsSelection())
        clipboard->setText(selectedText(), QClipboard::Selection);
}

void TerminalWidget::wheelEvent(QWheelEvent* event)
{
    const int steps = event->angleDelta().y() / 120;
    if (steps == 0)
        return QAbstractScrollArea::wheelEvent(event);
    if (reportsMouse(event->modifiers())) {
        for (int i = 0; i < std::abs(steps); ++i) {
            reportMouseButton(event->position(), steps > 0 ? 4 : 5, true, event->modifiers());
            reportMouseButton(event->position(), steps > 0 ? 4 : 5, false, event->modifiers());
        }
        return;
    }
    if (m_screen.altScreen()) {
        TerminalKeyInput arrow;
        arrow.kind = TerminalKeyInput::Kind::Key;
        arrow.vtermKey = steps > 0 ? VTERM_KEY_UP : VTERM_KEY_DOWN;
        for (int i = 0; i < 3 * std::abs(steps); ++i)
            m_screen.sendKey(arrow);
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void TerminalWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), m_screen.defaultBackground());
    const int first = verticalScrollBar()->value();
    for (int row = 0; row < m_screen.rows(); ++row)
        paintLine(painter, first + row, row * m_cell.height());
}

void TerminalWidget::paintLine(QPainter& painter, int line, int y)
{
    const int cursorLine = m_screen.scrollbackCount() + m_screen.cursor().y();
    const bool cursorHere = line == cursorLine && m_screen.cursorVisible();
    // Text is drawn in runs of cells with the same font and colour: one drawText() per run
    // instead of one per cell (a full screen is thousands of cells; shaping each alone made
    // painting the bottleneck of a fast `cat`). Only printable ASCII joins a run: the fonts
    // advance such a character by exactly one cell (see m_fonts), so a run stays on the grid;
    // anything else is drawn alone at its cell.
    QString run;
    int runCol = 0;
    int runStyle = 0;
    QColor runColor;
    const auto flush = [&] {
        if (run.isEmpty())
            return;
        const QFont& font = m_fonts[size_t(runStyle)];
        if (painter.font() != font)
            painter.setFont(font);
        painter.setPen(runColor);
        painter.drawText(QPoint(runCol * m_cell.width(), y + m_ascent), run);
        run.clear();
    };
    for (int col = 0; col < m_screen.cols(); ++col) {
        const TerminalCell cell = m_screen.lineCell(line, col);
        if (cell.width == 0)
            continue;
        QColor foreground = cell.foreground.rgb;
        QColor background = cell.background.rgb;
        bool paintBackground = cell.background.kind != TerminalColor::Kind::Default;
        bool inverted = cell.reverse != isSelected(line, col);
        const bool isCursor = cursorHere && col == m_screen.cursor().x();
        if (isCursor && hasFocus())
            inverted = !inverted;
        if (inverted) {
            std::swap(foreground, background);
            paintBackground = true;
        }
        const QRect rect(col * m_cell.width(), y, cell.width * m_cell.width(), m_cell.height());
        if (paintBackground)
            painter.fillRect(rect, background);
        const int style = (cell.bold ? 1 : 0) | (cell.italic ? 2 : 0) | (cell.underline ? 4 : 0)
                          | (cell.strike ? 8 : 0);
        const bool blank = cell.text.isEmpty() || cell.text == QLatin1String(" ");
        const bool ascii = cell.width == 1 && cell.text.size() == 1 && cell.text.at(0) > QLatin1Char(' ')
                           && cell.text.at(0) < QChar(0x7f);
        if (!run.isEmpty() && (!(ascii || blank) || style != runStyle || foreground != runColor
                               || runCol + run.size() != col))
            flush();
        if (ascii || (blank && !run.isEmpty() && !(style & (4 | 8)))) {
            if (run.isEmpty()) {
                runCol = col;
                runStyle = style;
                runColor = foreground;
            }
            run.append(ascii ? cell.text.at(0) : QLatin1Char(' '));
        } else if (!blank) {
            const QFont& font = m_fonts[size_t(style)];
            if (painter.font() != font)
                painter.setFont(font);
            painter.setPen(foreground);
            painter.drawText(QPoint(rect.x(), y + m_ascent), cell.text);
        }
        if (isCursor && !hasFocus()) {
            flush();
            painter.setPen(cell.foreground.rgb);
            painter.drawRect(rect.adjusted(0, 0, -1, -1));
        }
    }
    flush();
}

} // namespace sbw
