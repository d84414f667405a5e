#include "TerminalText.h"

#include "VisibleText.h"

#include <QList>
#include <algorithm>

namespace sbw {

QString sanitisedTerminalTitle(QStringView title)
{
    QString clean;
    bool pendingSpace = false;
    for (const char32_t codePoint : title.toUcs4()) {
        if (isHiddenCharacter(codePoint) || codePoint == U'\n' || codePoint == U'\t' ||
            QChar::isSpace(codePoint)) {
            pendingSpace = !clean.isEmpty();
            continue;
        }
        if (pendingSpace)
            clean.append(QLatin1Char(' '));
        pendingSpace = false;
        clean.append(QString::fromUcs4(&codePoint, 1));
    }
    if (clean.size() > kMaxTerminalTitleChars) {
        clean.truncate(kMaxTerminalTitleChars - 1);
        if (clean.back().isHighSurrogate())
            clean.chop(1);
        clean.append(QChar(0x2026));
    }
    return clean;
}

QByteArray neutralisedPaste(QStringView text)
{
    QString clean;
    clean.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == QLatin1Char('\r')) {
            clean.append(QLatin1Char('\r'));
            if (i + 1 < text.size() && text[i + 1] == QLatin1Char('\n'))
                ++i;
        } else if (c == QLatin1Char('\n')) {
            clean.append(QLatin1Char('\r'));
        } else if (c == QLatin1Char('\t') ||
                   !(c.unicode() < 0x20 || (c.unicode() >= 0x7f && c.unicode() <= 0x9f))) {
            clean.append(c);
        }
    }
    return clean.toUtf8();
}

QByteArray neutralisedStatusRequests(QByteArrayView bytes, QByteArray* held)
{
    static constexpr QByteArrayView kIntroducer("\x1bP$q");
    // Whole requests, up to their string terminator: libvterm reads on past an ESC that a
    // control character follows, so "m" ESC 0x1f "\\" was not the request "m" but one it does
    // not know, and crashed it like any other (found by tests/fuzz/fuzz_terminal).
    static constexpr QByteArrayView kKnown[] = {"m\x1b\\", "r\x1b\\", "s\x1b\\", " q\x1b\\",
                                                "\"q\x1b\\"};
    QByteArray out = bytes.toByteArray();
    held->clear();
    for (qsizetype at = out.indexOf(kIntroducer); at >= 0;
         at = out.indexOf(kIntroducer, at + kIntroducer.size())) {
        const QByteArrayView request = QByteArrayView(out).sliced(at + kIntroducer.size());
        bool known = false;
        bool undecided = false;
        for (QByteArrayView candidate : kKnown) {
            known = known || request.startsWith(candidate);
            undecided = undecided || candidate.startsWith(request);
        }
        if (!known && undecided) {
            *held = out.sliced(at);
            out.truncate(at);
            return out;
        }
        if (!known)
            out[at + kIntroducer.size() - 1] = 'Q';
    }
    for (qsizetype n = std::min(kIntroducer.size() - 1, out.size()); n > 0; --n) {
        if (out.endsWith(kIntroducer.first(n))) {
            *held = out.last(n);
            out.chop(n);
            break;
        }
    }
    return out;
}

QByteArray limitedCsiArguments(QByteArrayView bytes, CsiScan& scan)
{
    QByteArray out;
    out.reserve(bytes.size());
    for (const char byte : bytes) {
        const auto c = uchar(byte);
        if (scan.separators >= 0) {
            if (c == ';' || c == ':') {
                if (scan.separators == kMaxCsiArguments - 1)
                    continue;
                ++scan.separators;
            } else if ((c >= 0x40 && c <= 0x7e) || c == 0x18 || c == 0x1a || c == 0x1b) {
                scan.separators = -1; // the final byte, CAN, SUB or ESC ends the sequence
            }
        }
        if (scan.afterEscape && c == '[')
            scan.separators = 0;
        scan.afterEscape = c == 0x1b;
        out.append(byte);
    }
    return out;
}

} // namespace sbw
