#pragma once

#include "terminal/TerminalCell.h"
#include "terminal/TerminalGrid.h"
#include "terminal/TerminalKeys.h"
#include "terminal/TerminalLine.h"
#include "terminal/TerminalText.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QObject>
#include <QPoint>
#include <QString>
#include <memory>
#include <vector>
#include <vterm.h>

namespace sbw {

/// The terminal's state without any painting: libvterm parses the program's output, a
/// TerminalGrid keeps the cells (main and alternate screen), this class keeps the scrollback
/// (lines pushed off the top of the main screen, as TerminalLine), the cursor and the title,
/// and turns keys and pastes into the bytes the program reads.
///
/// Rows and columns count from 0. "Lines" number the whole history: line 0 is the oldest
/// scrollback line, line scrollbackCount() is the top row of the screen.
///
/// What the program cannot do: write or read the clipboard (OSC 52 is dropped: libvterm acts
/// on it only through selection callbacks, and none are registered), set a window title (OSC 0/2
/// only emit titleChanged() with a sanitised, capped text for a tab label), open files or URLs (no
/// such sequence is acted on).
class TerminalScreen : public QObject, private TerminalGrid::Listener
{
    Q_OBJECT

public:
    /// Scrollback lines kept; older ones are dropped.
    static constexpr int kScrollbackLines = 10'000;

    /// The narrowest screen. libvterm gives a double-width line (DECDWL, DECDHL) half the
    /// columns; on one column that is none, and libvterm 0.1.4 then puts the cursor on column
    /// -1 (found by tests/fuzz/fuzz_terminal). Two columns keep one for such a line.
    static constexpr int kMinimumColumns = 2;

    /// A screen of at least kMinimumColumns columns and one row.
    TerminalScreen(int cols, int rows, QObject* parent = nullptr);
    ~TerminalScreen() override;

    /// Parses program output (UTF-8 with escape sequences; may be cut anywhere).
    void feed(QByteArrayView bytes);

    /// Changes the grid (at least kMinimumColumns columns and one row). Returns false when the
    /// size was already that.
    bool resize(int cols, int rows);
    int cols() const { return m_cols; }
    int rows() const { return m_rows; }

    int scrollbackCount() const { return m_scrollbackCount; }

    /// Cell of the visible screen (row < rows(), col < cols()).
    TerminalCell cell(int row, int col) const;
    /// Cell of history line `line` (see the class comment); blank past a scrollback line's end.
    TerminalCell lineCell(int line, int col) const;

    /// Text of history line `line`, trailing blanks removed; the right halves of double-width
    /// characters add nothing.
    QString lineText(int line) const;
    /// The visible screen's rows joined by '\n', each without trailing blanks.
    QString screenText() const;
    /// Scrollback line `i` (0 = oldest) as text.
    QString scrollbackLine(int i) const { return lineText(i); }

    QPoint cursor() const { return m_cursor; } ///< x = column, y = row of the screen
    bool cursorVisible() const { return m_cursorVisible; }
    bool altScreen() const { return m_altScreen; }
    QString title() const { return m_title; }
    /// The colour of cells whose background is TerminalColor::Kind::Default.
    QColor defaultBackground() const;

    /// Sends a key press to the program (through outputReady()).
    void sendKey(const TerminalKeyInput& key);
    /// True while the program asked for mouse reports (DECSET 1000, 1002, 1003).
    bool mouseReporting() const { return m_mouseReporting; }
    /// Reports a mouse button (1 left, 2 middle, 3 right, 4/5 wheel up/down) pressed or
    /// released over screen cell (row, col), with VTermModifier bits, in the program's
    /// chosen encoding; nothing unless mouseReporting().
    void sendMouseButton(int row, int col, int button, bool pressed, int modifiers);
    /// Reports the mouse over screen cell (row, col) (drags and moves, as the mode asks).
    void sendMouseMove(int row, int col, int modifiers);
    /// Sends pasted text: neutralisedPaste(), wrapped in ESC[200~ … ESC[201~ when the program
    /// enabled bracketed paste (DECSET 2004).
    void paste(QStringView text);

Q_SIGNALS:
    /// Bytes for the program: typed keys, pastes and the terminal's answers to queries.
    void outputReady(const QByteArray& bytes);
    /// Cells, the cursor or the scrollback changed.
    void changed();
    void titleChanged(const QString& title);
    void bell();

private:
    struct Callbacks;

    // TerminalGrid::Listener
    void pushLine(const VTermScreenCell* cells, int cols) override;
    bool popLine(VTermScreenCell* cells, int cols) override;
    void cursorMoved(VTermPos pos, bool visible) override;
    void propertyChanged(VTermProp prop, const VTermValue& value) override;
    void bellRang() override;
    void damaged() override;

    TerminalCell decode(const VTermScreenCell& cell) const;
    VTermScreenCell screenCell(int row, int col) const;
    /// Scrollback line `i` (0 = oldest, < scrollbackCount()).
    const TerminalLine& scrollbackAt(int i) const
    {
        return m_scrollback[(size_t(m_scrollbackFirst) + size_t(i)) % m_scrollback.size()];
    }
    void pushScrollback(const VTermScreenCell* cells, int cols);
    /// Emits outputReady() and changed() for what the last call produced.
    void flushOutput();

    VTerm* m_vt = nullptr;
    std::unique_ptr<TerminalGrid> m_grid;
    int m_cols = 0;
    int m_rows = 0;
    /// A ring of at most kScrollbackLines lines, the oldest at m_scrollbackFirst; slots are
    /// overwritten in place once it is full.
    std::vector<TerminalLine> m_scrollback;
    int m_scrollbackFirst = 0;
    int m_scrollbackCount = 0;
    QPoint m_cursor;
    bool m_cursorVisible = true;
    bool m_altScreen = false;
    bool m_mouseReporting = false;
    QString m_title;
    VTermScreenCell m_blank{}; ///< an empty cell in the default colours
    QByteArray m_output;       ///< bytes for the program, emitted by flushOutput()
    C1Scan m_c1Scan;           ///< where the output is for withoutC1Controls()
    CsiScan m_csiScan;         ///< where the output is for limitedCsiArguments()
    DcsScan m_dcsScan;         ///< where the output is for withoutDeviceControlStrings()
    bool m_changed = false;    ///< changed() is due at the next flushOutput()
};

} // namespace sbw
