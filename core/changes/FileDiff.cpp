#include "changes/FileDiff.h"

#include "changes/FileChangeBounds.h"
#include "changes/UnifiedDiff.h"


namespace sbw {
namespace {

using file_change_bounds::kMaxDiffFileBytes;

bool isText(const QByteArray& bytes)
{
    return !bytes.contains('\0') && bytes.isValidUtf8();
}

/// Why there is no diff, or empty when one can be made.
QString diffObstacle(const FileChange& change, const std::optional<QByteArray>& before,
                     const std::optional<QByteArray>& after)
{
    if (std::max(change.sizeBefore, change.sizeAfter) > kMaxDiffFileBytes)
        return QStringLiteral("larger than %1 KiB: no diff").arg(kMaxDiffFileBytes / 1024);
    if (!before)
        return QStringLiteral("no diff: the content before the command was not kept");
    if (!after)
        return QStringLiteral("no diff: the content after the command could not be read");
    if (!isText(*before) || !isText(*after))
        return QStringLiteral("binary: no diff");
    return {};
}

} // namespace

void attachDiff(FileChange& change, const std::optional<QByteArray>& before, const std::optional<QByteArray>& after)
{
    const bool fileBefore = change.typeBefore == 'f' || change.typeBefore == 0;
    const bool fileAfter = change.typeAfter == 'f' || change.typeAfter == 0;
    if (!fileBefore || !fileAfter)
        return;
    const std::optional<QByteArray> from = change.kind == ChangeKind::Created ? QByteArray() : before;
    const std::optional<QByteArray> to = change.kind == ChangeKind::Deleted ? QByteArray() : after;
    change.diffNote = diffObstacle(change, from, to);
    if (!change.diffNote.isEmpty())
        return;
    const QString beforeLabel = change.kind == ChangeKind::Created ? QStringLiteral("/dev/null") : change.path;
    const QString afterLabel = change.kind == ChangeKind::Deleted ? QStringLiteral("/dev/null") : change.path;
    auto diff = unifiedDiff(*from, *to, beforeLabel, afterLabel);
    if (!diff) {
        change.diffNote = QStringLiteral("no diff: %1").arg(diff.error().message);
        return;
    }
    change.diff = diff.value();
    change.hasDiff = !change.diff.isEmpty();
    if (!change.hasDiff)
        change.diffNote = change.kind == ChangeKind::Modified ? QStringLiteral("same content: only its time changed")
                                                              : QStringLiteral("empty");
}

} // namespace sbw
