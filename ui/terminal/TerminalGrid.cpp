#include "terminal/TerminalGrid.h"

#include <algorithm>
#include <cstring>

namespace sbw {
namespace {

constexpr uint32_t kWideRightHalf = uint32_t(-1); // libvterm's mark for a wide char's 2nd cell

} // namespace

struct TerminalGrid::Callbacks
{
    static TerminalGrid& self(void* user) { return *static_cast<TerminalGrid*>(user); }

    static int putglyph(VTermGlyphInfo* info, VTermPos pos, void* user)
    {
        return self(user).putGlyph(*info, pos);
    }
    static int movecursor(VTermPos pos, VTermPos, int visible, void* user)
    {
        self(user).m_listener.cursorMoved(pos, visible);
        return 1;
    }
    static int scrollrect(VTermRect rect, int downward, int rightward, void* user)
    {
        return self(user).scrollRect(rect, downward, rightward);
    }
    static int moverect(VTermRect dest, VTermRect src, void* user)
    {
        return self(user).moveRect(dest, src);
    }
    static int erase(VTermRect rect, int selective, void* user)
    {
        return self(user).erase(rect, selective);
    }
    static int setpenattr(VTermAttr attr, VTermValue* value, void* user)
    {
        return self(user).setPenAttr(attr, *value);
    }
    static int settermprop(VTermProp prop, VTermValue* value, void* user)
    {
        return self(user).setTermProp(prop, *value);
    }
    static int bell(void* user)
    {
        self(user).m_listener.bellRang();
        return 1;
    }
    static int resize(int rows, int cols, VTermPos* delta, void* user)
    {
        return self(user).resize(rows, cols, *delta);
    }
    static int setlineinfo(int row, const VTermLineInfo* newInfo, const VTermLineInfo* oldInfo,
                           void* user)
    {
        return self(user).setLineInfo(row, *newInfo, *oldInfo);
    }
    static const VTermStateCallbacks* table()
    {
        static const VTermStateCallbacks callbacks = {
            &putglyph, &movecursor, &scrollrect, &moverect, &erase, nullptr,
            &setpenattr, &settermprop, &bell, &resize, &setlineinfo,
        };
        return &callbacks;
    }
};

TerminalGrid::TerminalGrid(VTerm* vt, Listener& listener)
    : m_vt(vt), m_state(vterm_obtain_state(vt)), m_listener(listener)
{
    vterm_get_size(vt, &m_rows, &m_cols);
    for (Buffer& buffer : m_buffers) {
        buffer.cells.assign(size_t(m_rows) * size_t(m_cols), Cell{});
        buffer.rowIndex.resize(size_t(m_rows));
        for (int row = 0; row < m_rows; ++row)
            buffer.rowIndex[size_t(row)] = row;
    }
    m_line.resize(size_t(m_cols));
    vterm_state_set_callbacks(m_state, Callbacks::table(), this);
}

TerminalGrid::Cell* TerminalGrid::at(int row, int col)
{
    if (row < 0 || row >= m_rows || col < 0 || col >= m_cols)
        return nullptr;
    return &m_buffer->cells[size_t(m_buffer->rowIndex[size_t(row)]) * size_t(m_cols) + size_t(col)];
}

const TerminalGrid::Cell* TerminalGrid::at(int row, int col) const
{
    return const_cast<TerminalGrid*>(this)->at(row, col);
}

bool TerminalGrid::cell(int row, int col, VTermScreenCell& out) const
{
    if (!at(row, col))
        return false;
    copyCell(at(row, 0), col, out);
    return true;
}

void TerminalGrid::copyCell(const Cell* row, int col, VTermScreenCell& out) const
{
    const Cell& cell = row[col];
    for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL; ++i) {
        out.chars[i] = cell.chars[i];
        if (!cell.chars[i])
            break;
    }
    const VTermScreenCellAttrs& attrs = cell.pen.attrs;
    out.attrs.bold = attrs.bold;
    out.attrs.underline = attrs.underline;
    out.attrs.italic = attrs.italic;
    out.attrs.blink = attrs.blink;
    out.attrs.reverse = attrs.reverse ^ m_globalReverse;
    out.attrs.strike = attrs.strike;
    out.attrs.font = attrs.font;
    out.attrs.dwl = attrs.dwl;
    out.attrs.dhl = attrs.dhl;
    out.fg = cell.pen.fg;
    out.bg = cell.pen.bg;
    out.width = col < m_cols - 1 && row[col + 1].chars[0] == kWideRightHalf ? 2 : 1;
}

void TerminalGrid::clearCell(Cell& cell) const
{
    cell.chars[0] = 0;
    cell.pen = m_pen;
}

bool TerminalGrid::rowIsBlank(int row) const
{
    for (int col = 0; col < m_cols; ++col)
        if (at(row, col)->chars[0] != 0)
            return false;
    return true;
}

void TerminalGrid::pushRow(int row)
{
    const Cell* cells = at(row, 0);
    for (int col = 0; col < m_cols; ++col)
        copyCell(cells, col, m_line[size_t(col)]);
    m_listener.pushLine(m_line.data(), m_cols);
}

int TerminalGrid::putGlyph(const VTermGlyphInfo& info, VTermPos pos)
{
    Cell* cell = at(pos.row, pos.col);
    if (!cell)
        return 0;
    int i = 0;
    for (; i < VTERM_MAX_CHARS_PER_CELL && info.chars[i]; ++i) {
        cell->chars[i] = info.chars[i];
        cell->pen = m_pen;
    }
    if (i < VTERM_MAX_CHARS_PER_CELL)
        cell->chars[i] = 0;
    for (int col = 1; col < info.width; ++col)
        if (Cell* right = at(pos.row, pos.col + col))
            right->chars[0] = kWideRightHalf;
    cell->pen.protectedCell = info.protected_cell;
    cell->pen.attrs.dwl = info.dwl;
    cell->pen.attrs.dhl = info.dhl;
    m_listener.damaged();
    return 1;
}

int TerminalGrid::scrollRect(VTermRect rect, int downward, int rightward)
{
    vterm_scroll_rect(rect, downward, rightward, &Callbacks::moverect, &Callbacks::erase, this);
    m_listener.damaged();
    return 1;
}

int TerminalGrid::moveRect(VTermRect dest, VTermRect src)
{
    const bool fullWidth = dest.start_col == 0 && dest.end_col == m_cols;
    if (fullWidth && dest.start_row == 0 && onMainScreen())
        for (int row = 0; row < src.start_row; ++row)
            pushRow(row);

    const int downward = src.start_row - dest.start_row;
    if (fullWidth && src.start_col == 0 && src.end_col == m_cols) {
        // Whole rows: move their numbers. The rows left behind are erased next
        // (vterm_scroll_rect), as they are after VTermScreen copies the cells.
        auto first = m_buffer->rowIndex.begin();
        if (downward > 0)
            std::rotate(first + dest.start_row, first + src.start_row, first + src.end_row);
        else if (downward < 0)
            std::rotate(first + src.start_row, first + src.end_row, first + dest.end_row);
        return 1;
    }
    const int cols = src.end_col - src.start_col;
    const int initRow = downward < 0 ? dest.end_row - 1 : dest.start_row;
    const int endRow = downward < 0 ? dest.start_row - 1 : dest.end_row;
    const int step = downward < 0 ? -1 : 1;
    for (int row = initRow; row != endRow; row += step)
        std::memmove(at(row, dest.start_col), at(row + downward, src.start_col),
                     size_t(cols) * sizeof(Cell));
    return 1;
}

int TerminalGrid::erase(VTermRect rect, bool selective)
{
    // While the grid resizes, the state has its new size already: rows past it are about to
    // go, and the state has no line info for them.
    int stateRows = 0;
    int stateCols = 0;
    vterm_get_size(m_vt, &stateRows, &stateCols);
    const int rows = std::min({m_rows, stateRows, rect.end_row});
    for (int row = std::max(0, rect.start_row); row < rows; ++row) {
        const VTermLineInfo* info = vterm_state_get_lineinfo(m_state, row);
        for (int col = std::max(0, rect.start_col); col < rect.end_col && col < m_cols; ++col) {
            Cell* cell = at(row, col);
            if (selective && cell->pen.protectedCell)
                continue;
            cell->chars[0] = 0;
            cell->pen = m_pen;
            cell->pen.attrs.dwl = info->doublewidth;
            cell->pen.attrs.dhl = info->doubleheight;
        }
    }
    m_listener.damaged();
    return 1;
}

int TerminalGrid::setPenAttr(VTermAttr attr, const VTermValue& value)
{
    switch (attr) {
    case VTERM_ATTR_BOLD:
        m_pen.attrs.bold = value.boolean;
        return 1;
    case VTERM_ATTR_UNDERLINE:
        m_pen.attrs.underline = value.number;
        return 1;
    case VTERM_ATTR_ITALIC:
        m_pen.attrs.italic = value.boolean;
        return 1;
    case VTERM_ATTR_BLINK:
        m_pen.attrs.blink = value.boolean;
        return 1;
    case VTERM_ATTR_REVERSE:
        m_pen.attrs.reverse = value.boolean;
        return 1;
    case VTERM_ATTR_STRIKE:
        m_pen.attrs.strike = value.boolean;
        return 1;
    case VTERM_ATTR_FONT:
        m_pen.attrs.font = value.number;
        return 1;
    case VTERM_ATTR_FOREGROUND:
        m_pen.fg = value.color;
        return 1;
    case VTERM_ATTR_BACKGROUND:
        m_pen.bg = value.color;
        return 1;
    case VTERM_N_ATTRS:
        return 0;
    }
    return 0;
}

int TerminalGrid::setTermProp(VTermProp prop, const VTermValue& value)
{
    switch (prop) {
    case VTERM_PROP_ALTSCREEN:
        m_buffer = value.boolean ? &m_buffers[1] : &m_buffers[0];
        // Entering, the state erases the alternate screen, which reports the damage.
        if (!value.boolean)
            m_listener.damaged();
        break;
    case VTERM_PROP_REVERSE:
        m_globalReverse = value.boolean;
        m_listener.damaged();
        break;
    default:
        break;
    }
    m_listener.propertyChanged(prop, value);
    return 1;
}

void TerminalGrid::reallocate(Buffer& buffer, int rows, int cols) const
{
    Buffer resized;
    resized.cells.resize(size_t(rows) * size_t(cols));
    resized.rowIndex.resize(size_t(rows));
    for (int row = 0; row < rows; ++row) {
        resized.rowIndex[size_t(row)] = row;
        for (int col = 0; col < cols; ++col) {
            Cell& cell = resized.cells[size_t(row) * size_t(cols) + size_t(col)];
            if (row < m_rows && col < m_cols)
                cell = buffer.cells[size_t(buffer.rowIndex[size_t(row)]) * size_t(m_cols) + size_t(col)];
            else
                clearCell(cell);
        }
    }
    buffer = std::move(resized);
}

int TerminalGrid::resize(int rows, int cols, VTermPos& delta)
{
    const int oldRows = m_rows;
    const bool main = onMainScreen();
    if (main && rows < oldRows) {
        // Fewer rows: the lines below the cursor that are blank go; if that is not enough,
        // the top lines go to the scrollback, but never the cursor's line: the lines below it
        // are cut instead. (VTermScreen of libvterm 0.1.4 scrolls the cursor's line away too,
        // leaving libvterm's cursor on a negative row, where its state layer then reads and
        // writes its line table out of bounds.)
        VTermPos cursor;
        vterm_state_get_cursorpos(m_state, &cursor);
        int row = oldRows - 1;
        for (; row >= rows; --row)
            if (!rowIsBlank(row) || cursor.row == row)
                break;
        const int firstBlankRow = row + 1;
        const int scrolled = std::min(firstBlankRow - rows, cursor.row);
        if (scrolled > 0) {
            scrollRect(VTermRect{0, oldRows, 0, m_cols}, scrolled, 0);
            delta.row -= scrolled;
        }
    }
    for (Buffer& buffer : m_buffers)
        reallocate(buffer, rows, cols);
    m_rows = rows;
    m_cols = cols;
    m_line.assign(size_t(cols), VTermScreenCell{});

    if (main && rows > oldRows) {
        // More rows: scrollback lines come back at the top.
        for (int missing = rows - oldRows; missing > 0; --missing) {
            if (!m_listener.popLine(m_line.data(), m_cols))
                break;
            scrollRect(VTermRect{0, m_rows, 0, m_cols}, -1, 0);
            for (int col = 0; col < m_cols; col += std::max(1, int(m_line[size_t(col)].width))) {
                const VTermScreenCell& from = m_line[size_t(col)];
                Cell* cell = at(0, col);
                for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL; ++i) {
                    cell->chars[i] = from.chars[i];
                    if (!from.chars[i])
                        break;
                }
                cell->pen.attrs.bold = from.attrs.bold;
                cell->pen.attrs.underline = from.attrs.underline;
                cell->pen.attrs.italic = from.attrs.italic;
                cell->pen.attrs.blink = from.attrs.blink;
                cell->pen.attrs.reverse = from.attrs.reverse ^ m_globalReverse;
                cell->pen.attrs.strike = from.attrs.strike;
                cell->pen.attrs.font = from.attrs.font;
                cell->pen.fg = from.fg;
                cell->pen.bg = from.bg;
                if (from.width == 2)
                    if (Cell* right = at(0, col + 1))
                        right->chars[0] = kWideRightHalf;
            }
            ++delta.row;
        }
    }
    m_listener.damaged();
    return 1;
}

int TerminalGrid::setLineInfo(int row, const VTermLineInfo& newInfo, const VTermLineInfo& oldInfo)
{
    if (newInfo.doublewidth != oldInfo.doublewidth || newInfo.doubleheight != oldInfo.doubleheight) {
        for (int col = 0; col < m_cols; ++col) {
            Cell* cell = at(row, col);
            cell->pen.attrs.dwl = newInfo.doublewidth;
            cell->pen.attrs.dhl = newInfo.doubleheight;
        }
        if (newInfo.doublewidth)
            erase(VTermRect{row, row + 1, m_cols / 2, m_cols}, false);
        m_listener.damaged();
    }
    return 1;
}

} // namespace sbw
