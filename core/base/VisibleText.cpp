#include "base/VisibleText.h"

namespace sbw {
namespace {

/// "<U+202E>": a code point by number.
QString codePointForm(char32_t c)
{
    const QString hex = QString::number(uint(c), 16).toUpper();
    return QStringLiteral("<U+%1>").arg(hex, 4, QLatin1Char('0'));
}

QString byteForm(uchar byte)
{
    return QStringLiteral("\\x%1").arg(uint(byte), 2, 16, QLatin1Char('0'));
}

/// The code point of the well-formed UTF-8 sequence that starts `bytes` (not empty) and its
/// length in bytes; length 0 when none starts there (an invalid, overlong, surrogate or
/// truncated sequence).
std::pair<char32_t, int> decodeUtf8(QByteArrayView bytes)
{
    const auto byte = [&](qsizetype i) { return uchar(bytes[i]); };
    const uchar lead = byte(0);
    if (lead < 0x80)
        return {lead, 1};
    int length = 0;
    uchar low = 0x80;
    uchar high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;  // no overlong forms
        high = lead == 0xed ? 0x9f : 0xbf; // no surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;
        high = lead == 0xf4 ? 0x8f : 0xbf; // nothing above U+10FFFF
    } else {
        return {0, 0};
    }
    if (bytes.size() < length || byte(1) < low || byte(1) > high)
        return {0, 0};
    char32_t c = lead & (0xff >> (length + 1));
    for (int i = 1; i < length; ++i) {
        if ((byte(i) & 0xc0) != 0x80)
            return {0, 0};
        c = (c << 6) | (byte(i) & 0x3f);
    }
    return {c, length};
}

} // namespace

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
        return byteForm(uchar(c));
    return codePointForm(c);
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

QString visibleName(QByteArrayView name)
{
    QString out;
    out.reserve(name.size());
    for (qsizetype i = 0; i < name.size();) {
        const auto [c, length] = decodeUtf8(name.sliced(i));
        if (length == 0) {
            out += byteForm(uchar(name[i]));
            ++i;
            continue;
        }
        i += length;
        if (c == U'\\')
            out += QLatin1String("\\\\");
        else if (c == U'\n')
            out += QLatin1String("\\n");
        else if (c == U'\t')
            out += QLatin1String("\\t");
        else if (c == U'<' && name.sliced(i).startsWith("U+"))
            out += byteForm('<'); // "<U+" only ever starts a code point's form
        else if (isHiddenCharacter(c))
            out += c < 0x80 ? visibleForm(c) : codePointForm(c); // "\x85" is the byte 0x85
        else
            out += QChar::fromUcs4(c);
    }
    return out;
}

QString plainProcessName(QStringView name)
{
    QString out;
    out.reserve(name.size());
    for (const QChar c : name) {
        const bool plain = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
                           (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
                           (c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
                           QStringLiteral("._+-").contains(c);
        out += plain ? c : QLatin1Char('?');
    }
    return out;
}

} // namespace sbw
