#include "approval/PreviewText.h"

#include "base/VisibleText.h"
#include "preview/ActionPreview.h"

#include <QLocale>

namespace sbw {
namespace {

constexpr qsizetype kShownOutputChars = 4000;

QString sizeText(qint64 bytes)
{
    return bytes < 0 ? QStringLiteral("—") : QLocale::c().toString(bytes) + QStringLiteral(" B");
}

QString outputText(const char* name, const QByteArray& bytes)
{
    if (bytes.isEmpty())
        return {};
    QString text = makeVisible(QString::fromUtf8(bytes).left(kShownOutputChars));
    if (!text.endsWith(QLatin1Char('\n')))
        text += QLatin1Char('\n');
    return QStringLiteral("%1:\n%2").arg(QLatin1String(name), text);
}

QString changesText(const FileChanges& changes)
{
    QString text = changes.summary() + QLatin1Char('\n');
    for (const FileChange& change : changes.files) {
        text += QStringLiteral("  %1 %2  (%3 → %4)\n")
                    .arg(changeKindName(change.kind), oneLineVisible(change.path), sizeText(change.sizeBefore),
                         sizeText(change.sizeAfter));
        if (!change.diff.isEmpty()) {
            text += makeVisible(QString::fromUtf8(change.diff));
            if (!text.endsWith(QLatin1Char('\n')))
                text += QLatin1Char('\n');
        }
        else if (!change.diffNote.isEmpty())
            text += QStringLiteral("    %1\n").arg(oneLineVisible(change.diffNote));
    }
    if (const QString more = changes.moreText(); !more.isEmpty())
        text += QStringLiteral("  %1\n").arg(more);
    return text;
}

} // namespace

QString previewReportText(const PreviewReport& report)
{
    QString text = QStringLiteral("\n── Preview in fork %1 (made in %2 ms, ran in %3 ms, no network; the workspace is untouched) ──\n")
                       .arg(report.fork)
                       .arg(report.forkMs)
                       .arg(report.runMs);
    text += report.command.summary() + QLatin1Char('\n');
    text += outputText("stdout", report.stdoutBytes);
    text += outputText("stderr", report.stderrBytes);
    text += changesText(report.command.fileChanges);
    if (report.newProcesses.isEmpty()) {
        text += QStringLiteral("no new processes left running\n");
    } else {
        text += QStringLiteral("new processes left running:\n");
        for (const QString& process : report.newProcesses)
            text += QStringLiteral("  %1\n").arg(oneLineVisible(process));
    }
    return text;
}

} // namespace sbw
