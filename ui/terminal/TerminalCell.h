#pragma once

#include <QColor>
#include <QString>

namespace sbw {

/// A colour as the program set it, plus the RGB value the terminal paints it with.
struct TerminalColor
{
    enum class Kind
    {
        Default, ///< the terminal's default foreground or background (SGR 39 / 49)
        Indexed, ///< palette entry `index`, 0–15 from SGR 30–37/90–97, 0–255 from SGR 38;5;N
        Rgb      ///< truecolor, SGR 38;2;R;G;B
    };
    Kind kind = Kind::Default;
    int index = -1; ///< palette index for Kind::Indexed, else -1
    QColor rgb;     ///< what is painted (for Default and Indexed: the terminal's palette)

    bool operator==(const TerminalColor&) const = default;
};

/// One cell of the terminal grid, decoded from libvterm for painting and for tests.
struct TerminalCell
{
    /// The character and its combining marks (NFC is not applied); empty for a blank cell and
    /// for the right half of a double-width character.
    QString text;
    /// 1 for a normal cell, 2 for a double-width character (it also covers the next cell),
    /// 0 for the right half of a double-width character.
    int width = 1;
    TerminalColor foreground;
    TerminalColor background;
    bool bold = false;
    bool italic = false;
    bool underline = false;
    bool reverse = false;
    bool strike = false;
};

} // namespace sbw
