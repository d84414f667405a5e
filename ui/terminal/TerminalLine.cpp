#include "terminal/TerminalLine.h"

#include <algorithm>
#include <cstring>

namespace sbw {
namespace {

bool isBlank(const VTermScreenCell& cell)
{
    return cell.chars[0] == 0 && VTERM_COLOR_IS_DEFAULT_BG(&cell.bg) && !cell.attrs.reverse &&
           !cell.attrs.underline && !cell.attrs.strike;
}

bool sameColor(const VTermColor& a, const VTermColor& b)
{
    return std::memcmp(&a, &b, sizeof(VTermColor)) == 0;
}

bool sameAttrs(const VTermScreenCellAttrs& a, const VTermScreenCellAttrs& b)
{
    return a.bold == b.bold && a.underline == b.underline && a.italic == b.italic &&
           a.blink == b.blink && a.reverse == b.reverse && a.strike == b.strike &&
           a.font == b.font && a.dwl == b.dwl && a.dhl == b.dhl;
}

} // namespace

void TerminalLine::assign(const VTermScreenCell* cells, int count)
{
    while (count > 0 && isBlank(cells[count - 1]))
        --count;
    m_chars.resize(size_t(count));
    m_pens.clear();
    m_marks.clear();
    for (int col = 0; col < count; ++col) {
        const VTermScreenCell& cell = cells[col];
        m_chars[size_t(col)] = cell.chars[0];
        if (cell.chars[0] != 0 && cell.chars[0] != kWideRightHalf && cell.chars[1] != 0) {
            Marks marks{col, {}};
            for (int i = 1; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i]; ++i)
                marks.chars[i - 1] = cell.chars[i];
            m_marks.push_back(marks);
        }
        if (m_pens.empty() || !sameAttrs(m_pens.back().attrs, cell.attrs) ||
            !sameColor(m_pens.back().fg, cell.fg) || !sameColor(m_pens.back().bg, cell.bg))
            m_pens.push_back(PenRun{col, cell.attrs, cell.fg, cell.bg});
    }
}

const TerminalLine::PenRun& TerminalLine::penAt(int col) const
{
    const auto after = std::upper_bound(m_pens.begin(), m_pens.end(), col,
                                        [](int c, const PenRun& run) { return c < run.firstCol; });
    return *(after - 1);
}

VTermScreenCell TerminalLine::cell(int col) const
{
    VTermScreenCell cell{};
    cell.chars[0] = m_chars[size_t(col)];
    const auto marks = std::lower_bound(m_marks.begin(), m_marks.end(), col,
                                        [](const Marks& m, int c) { return m.col < c; });
    if (marks != m_marks.end() && marks->col == col)
        std::copy(std::begin(marks->chars), std::end(marks->chars), cell.chars + 1);
    cell.width = col + 1 < size() && m_chars[size_t(col) + 1] == kWideRightHalf ? 2 : 1;
    const PenRun& pen = penAt(col);
    cell.attrs = pen.attrs;
    cell.fg = pen.fg;
    cell.bg = pen.bg;
    return cell;
}

void TerminalLine::appendCodePoint(QString& text, uint32_t codePoint)
{
    // Below the surrogates a code point is one UTF-16 unit; the rest go through
    // QString::fromUcs4(), which also decides what invalid ones become.
    if (codePoint < 0xd800) {
        text.append(QChar(char16_t(codePoint)));
    } else {
        const char32_t wide = codePoint;
        text.append(QString::fromUcs4(&wide, 1));
    }
}

QString TerminalLine::text() const
{
    QString text;
    text.reserve(size());
    auto marks = m_marks.begin();
    for (int col = 0; col < size(); ++col) {
        const uint32_t first = m_chars[size_t(col)];
        if (first == kWideRightHalf)
            continue;
        if (first == 0) {
            text.append(QLatin1Char(' '));
            continue;
        }
        appendCodePoint(text, first);
        while (marks != m_marks.end() && marks->col < col)
            ++marks;
        if (marks != m_marks.end() && marks->col == col)
            for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL - 1 && marks->chars[i]; ++i)
                appendCodePoint(text, marks->chars[i]);
    }
    while (text.endsWith(QLatin1Char(' ')))
        text.chop(1);
    return text;
}

} // namespace sbw
