#include "log/FileChangesText.h"

#include "base/GuestTextDecoder.h"
#include "base/VisibleText.h"

#include <QCoreApplication>
#include <QLocale>

namespace sbw {
namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("FileChangesText", text);
}

QString sizeText(qint64 bytes)
{
    return bytes < 0 ? QStringLiteral("—") : QLocale(QLocale::English, QLocale::UnitedStates).toString(bytes) + QStringLiteral(" B");
}

QString fileLine(const FileChange& file)
{
    QString line = QStringLiteral("%1 %2 %3 → %4  %5")
                       .arg(changeKindName(file.kind), -8)
                       .arg(file.typeName(), -7)
                       .arg(sizeText(file.sizeBefore), 12)
                       .arg(sizeText(file.sizeAfter), -12)
                       .arg(visibleName(file.path.toUtf8()));
    if (!file.diffNote.isEmpty())
        line += QStringLiteral("  (%1)").arg(file.diffNote);
    return line + QLatin1Char('\n');
}

QString diffText(const FileChange& file)
{
    GuestTextDecoder decoder;
    QString diff = decoder.decode(file.diff); // before finish(): the operands of + have no order
    diff += decoder.finish();
    return tr("── diff of %1 ──\n").arg(visibleName(file.path.toUtf8())) + makeVisible(diff);
}

} // namespace

QString fileChangesText(const FileChanges& changes)
{
    if (!changes.tracked)
        return {};
    QString text = tr("\n── files: %1 ──\n").arg(changes.summary());
    if (!changes.folders.isEmpty())
        text += tr("watched: %1\n").arg(makeVisible(changes.folders.join(QStringLiteral(", "))));
    for (const FileChange& file : changes.files)
        text += fileLine(file);
    if (!changes.moreText().isEmpty())
        text += changes.moreText() + QLatin1Char('\n');
    for (const FileChange& file : changes.files) {
        if (!file.diff.isEmpty())
            text += diffText(file);
    }
    return text;
}

} // namespace sbw
