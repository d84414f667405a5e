#include "TerminalText.h"

#include "VisibleText.h"

#include <QList>

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

} // namespace sbw
