#pragma once

#include <QString>
#include <cstdint>
#include <vector>
#include <vterm.h>

namespace sbw {

/// One scrollback line of a TerminalScreen, kept compactly: one code point per cell, the runs
/// of cells that share a pen (colours and attributes), and the rare cells that carry combining
/// marks. A line of plain text costs about 4 bytes per cell instead of the 40 of libvterm's
/// VTermScreenCell, and assign() reuses the storage of the line it overwrites, so a full
/// scrollback that keeps scrolling allocates nothing.
///
/// Trailing blank cells (no character, default background, no reverse, underline or strike)
/// are not stored: size() is the length without them.
class TerminalLine
{
public:
    /// libvterm's first code point of the right half of a double-width character.
    static constexpr uint32_t kWideRightHalf = uint32_t(-1);

    /// Keeps `cells[0 .. count)` without its trailing blanks, replacing what the line held.
    void assign(const VTermScreenCell* cells, int count);

    /// Cells stored, 0 … the width the line had on screen.
    int size() const { return int(m_chars.size()); }

    /// Cell `col` (0 ≤ col < size()) as libvterm gave it: code points, pen, and a width of 2
    /// for a character whose right half is the next cell, else 1.
    VTermScreenCell cell(int col) const;

    /// The line as text, as TerminalScreen::lineText() describes it.
    QString text() const;

    /// Appends one code point of a cell to `text` (invalid ones as QString::fromUcs4() makes them).
    static void appendCodePoint(QString& text, uint32_t codePoint);

private:
    struct PenRun
    {
        int firstCol;
        VTermScreenCellAttrs attrs;
        VTermColor fg;
        VTermColor bg;
    };
    /// Code points after the first of one cell (combining marks).
    struct Marks
    {
        int col;
        uint32_t chars[VTERM_MAX_CHARS_PER_CELL - 1];
    };

    const PenRun& penAt(int col) const;

    std::vector<uint32_t> m_chars; ///< first code point per cell: 0 blank, kWideRightHalf
    std::vector<PenRun> m_pens;    ///< by firstCol, the first at column 0
    std::vector<Marks> m_marks;    ///< by col
};

} // namespace sbw
