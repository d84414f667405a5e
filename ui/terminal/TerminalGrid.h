#pragma once

#include <cstdint>
#include <vector>
#include <vterm.h>

namespace sbw {

/// The cells of a terminal's main and alternate screens, kept from libvterm's state layer
/// (VTermState callbacks) in place of libvterm's screen layer (VTermScreen), with the same
/// results. VTermScreen copies every cell of the screen for each line it scrolls; this grid
/// keeps an index of rows and scrolls whole-width regions by moving row numbers, so a line of
/// output costs as much as the line, not as much as the screen.
///
/// Rows and columns count from 0. Lines scrolled off the top of the main screen go to
/// Listener::pushLine(); when the screen grows taller, Listener::popLine() gives them back.
class TerminalGrid
{
public:
    /// Receives what the grid does not keep itself; called during vterm_input_write(),
    /// vterm_set_size() and vterm_state_reset().
    class Listener
    {
    public:
        /// A line left the top of the main screen for the scrollback.
        virtual void pushLine(const VTermScreenCell* cells, int cols) = 0;
        /// Fills `cols` cells with the newest scrollback line and removes it; false when empty.
        virtual bool popLine(VTermScreenCell* cells, int cols) = 0;
        virtual void cursorMoved(VTermPos pos, bool visible) = 0;
        /// A terminal property, after the grid took what it needs (alternate screen, reverse).
        virtual void propertyChanged(VTermProp prop, const VTermValue& value) = 0;
        virtual void bellRang() = 0;
        /// Cells changed.
        virtual void damaged() = 0;

    protected:
        ~Listener() = default;
    };

    /// Takes over the state layer of `vt` (which must outlive the grid and have no VTermScreen)
    /// at its current size.
    TerminalGrid(VTerm* vt, Listener& listener);

    TerminalGrid(const TerminalGrid&) = delete;
    TerminalGrid& operator=(const TerminalGrid&) = delete;

    /// Cell (row, col) of the shown screen as vterm_screen_get_cell() gives it; false, and
    /// `out` untouched, outside the grid.
    bool cell(int row, int col, VTermScreenCell& out) const;

private:
    struct Pen
    {
        VTermScreenCellAttrs attrs{}; ///< dwl and dhl are the line's, set per cell
        VTermColor fg{};
        VTermColor bg{};
        bool protectedCell = false; ///< DECSCA: kept by selective erase
    };
    struct Cell
    {
        uint32_t chars[VTERM_MAX_CHARS_PER_CELL];
        Pen pen;
    };
    /// One screen: rows × cols cells in storage order, and which storage row each row shows.
    struct Buffer
    {
        std::vector<Cell> cells;
        std::vector<int> rowIndex;
    };
    struct Callbacks;

    Cell* at(int row, int col);
    const Cell* at(int row, int col) const;
    bool onMainScreen() const { return m_buffer == &m_buffers[0]; }
    void reallocate(Buffer& buffer, int rows, int cols) const;
    void clearCell(Cell& cell) const;
    /// Cell `col` of the row whose cells start at `row`, as cell() gives it.
    void copyCell(const Cell* row, int col, VTermScreenCell& out) const;
    void pushRow(int row);
    bool rowIsBlank(int row) const;

    // The VTermState callbacks and the moves of vterm_scroll_rect().
    int putGlyph(const VTermGlyphInfo& info, VTermPos pos);
    int scrollRect(VTermRect rect, int downward, int rightward);
    int moveRect(VTermRect dest, VTermRect src);
    int erase(VTermRect rect, bool selective);
    int setPenAttr(VTermAttr attr, const VTermValue& value);
    int setTermProp(VTermProp prop, const VTermValue& value);
    int resize(int rows, int cols, VTermPos& delta);
    int setLineInfo(int row, const VTermLineInfo& newInfo, const VTermLineInfo& oldInfo);

    VTerm* m_vt;
    VTermState* m_state;
    Listener& m_listener;
    int m_rows;
    int m_cols;
    Buffer m_buffers[2]; ///< main, alternate
    Buffer* m_buffer = &m_buffers[0];
    Pen m_pen;
    bool m_globalReverse = false;      ///< DECSCNM
    std::vector<VTermScreenCell> m_line; ///< one row for Listener::pushLine() / popLine()
};

} // namespace sbw
