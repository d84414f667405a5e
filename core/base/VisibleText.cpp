#include "base/VisibleText.h"

namespace sbw {

bool isHiddenCharacter(char32_t c)
{
    if (c < 0x20)
        return c != U'\n' && c != U'\t';
    if (c >= 0x7f && c <= 0x9f)
        return true;
    switch (c) {
    case 0x061c: // ARABIC LETTER MARK
    case 0x200e: // LEFT-TO-RIGHT MARK
    case 0x200f: // RIGHT-TO-LEFT MARK
    case 0x2028: // LINE SEPARATOR
    case 0x2029: // PARAGRAPH SEPARATOR
    case 0xfeff: // ZERO WIDTH NO-BREAK SPACE (BOM)
        return true;
    default:
        break;
    }
    if (c >= 0x202a && c <= 0x202e) // LRE, RLE, PDF, LRO, RLO
        return true;
    if (c >= 0x2066 && c <= 0x2069) // LRI, RLI, FSI, PDI
        return true;
    if (c >= 0xfff9 && c <= 0xfffb) // interlinear annotation anchors
        return true;
    if (c >= 0xfdd0 && c <= 0xfdef) // noncharacters; QTextDocument's frame markers among them
        return true;
    return (c & 0xfffe) == 0xfffe; // U+FFFE, U+FFFF, U+1FFFE, …
}

QString visibleForm(char32_t c)
{
    // ASCII notations: Unicode's Control Pictures (U+2400…) are missing from common fonts.
    if (c == U'\r')
        return QStringLiteral("\\r");
    if (c < 0xa0)
        return QStringLiteral("\\x%1").arg(uint(c), 2, 16, QLatin1Char('0'));
    const QString hex = QString::number(uint(c), 16).toUpper();
    return QStringLiteral("<U+%1>").arg(hex, 4, QLatin1Char('0'));
}

QString makeVisible(QStringView text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size();) {
        qsizetype length = 1;
        char32_t c = text[i].unicode();
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i], text[i + 1]);
            length = 2;
        }
        if (isHiddenCharacter(c))
            out += visibleForm(c);
        else
            out += text.sliced(i, length);
        i += length;
    }
    return out;
}

QString oneLineVisible(QStringView text, qsizetype maxChars)
{
    QStringView body = text;
    if (body.endsWith(u'\n'))
        body.chop(1);
    const qsizetype extraLines = body.count(u'\n');
    QString line = makeVisible(text).replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    if (maxChars > 0 && line.size() > maxChars)
        line = line.left(maxChars - 1) + QStringLiteral("…");
    if (extraLines == 1)
        line += QStringLiteral(" (+1 line)");
    else if (extraLines > 1)
        line += QStringLiteral(" (+%1 lines)").arg(extraLines);
    return line;
}

} // namespace sbw
