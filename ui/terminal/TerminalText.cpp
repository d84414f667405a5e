#include "terminal/TerminalText.h"

#include "base/VisibleText.h"

#include <QList>
#include <algorithm>
#include <utility>

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

namespace {

/// A byte that libvterm 0.1.4 passes over inside an escape sequence without ending it: a C0
/// control (it runs, as on a VT100), DEL, and any byte of 0x80 or more (ESC 0xFF P still
/// started a DCS; found by tests/fuzz/fuzz_terminal). CAN and SUB cancel the sequence, ESC
/// starts another.
bool isPassedOverInsideEscape(uchar c)
{
    return (c < 0x20 && c != 0x18 && c != 0x1a && c != 0x1b) || c >= 0x7f;
}

} // namespace

QByteArray withoutC1Controls(QByteArrayView bytes, C1Scan& scan)
{
    QByteArray out;
    out.reserve(bytes.size() + 1);
    if (std::exchange(scan.leadHeld, false)) {
        if (bytes.isEmpty() || uchar(bytes[0]) < 0x80 || uchar(bytes[0]) > 0x9f)
            out.append('\xc2');
        else
            bytes = bytes.sliced(1);
    }
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        if (uchar(bytes[i]) == 0xc2) {
            if (i + 1 == bytes.size()) {
                scan.leadHeld = true;
                break;
            }
            const auto next = uchar(bytes[i + 1]);
            if (next >= 0x80 && next <= 0x9f) {
                ++i;
                continue;
            }
        }
        out.append(bytes[i]);
    }
    return out;
}

QByteArray withoutDeviceControlStrings(QByteArrayView bytes, DcsScan& scan)
{
    static constexpr QByteArrayView kKnown[] = {"\x1bP$qm\x1b\\", "\x1bP$qr\x1b\\", "\x1bP$qs\x1b\\",
                                                "\x1bP$q q\x1b\\", "\x1bP$q\"q\x1b\\"};
    const QByteArray input = scan.held + bytes.toByteArray();
    scan.held.clear();
    QByteArray out;
    out.reserve(input.size());
    qsizetype at = 0;
    while (at < input.size()) {
        const char c = input[at];
        if (scan.dropping) {
            const bool last = at + 1 == input.size();
            if (c == '\x18' || c == '\x1a') { // CAN, SUB: the string is cancelled
                scan.dropping = false;
                ++at;
            } else if (c == '\x1b' && last) {
                scan.held = input.sliced(at);
                break;
            } else if (c == '\x1b') { // ST ends the string; another ESC ends it and starts anew
                scan.dropping = false;
                at += input[at + 1] == '\\' ? 2 : 0;
            } else {
                ++at;
            }
            continue;
        }
        if (c != '\x1b') {
            out.append(c);
            ++at;
            continue;
        }
        const QByteArrayView rest = QByteArrayView(input).sliced(at);
        qsizetype final = 1; // the byte after ESC and the bytes libvterm passes over there
        while (final < rest.size() && isPassedOverInsideEscape(uchar(rest[final])))
            ++final;
        if (final == rest.size()) {
            scan.held = rest.toByteArray();
            break;
        }
        if (rest[final] != 'P') {
            out.append(c);
            ++at;
            continue;
        }
        if (final > 1) { // ESC, passed-over bytes, P: the bytes stay, the string goes
            out.append(rest.sliced(1, final - 1));
            scan.dropping = true;
            at += final + 1;
            continue;
        }
        const auto known = std::find_if(std::begin(kKnown), std::end(kKnown),
                                        [&](QByteArrayView k) { return rest.startsWith(k); });
        if (known != std::end(kKnown)) {
            out.append(*known);
            at += known->size();
            continue;
        }
        if (std::any_of(std::begin(kKnown), std::end(kKnown),
                        [&](QByteArrayView k) { return k.startsWith(rest); })) {
            scan.held = rest.toByteArray(); // cut by the end of the output: decided next time
            break;
        }
        scan.dropping = true;
        at += 2;
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
        // ESC NUL [ and ESC 0xFF [ are CSIs for libvterm (isPassedOverInsideEscape()).
        scan.afterEscape = c == 0x1b || (scan.afterEscape && isPassedOverInsideEscape(c));
        out.append(byte);
    }
    return out;
}

} // namespace sbw
