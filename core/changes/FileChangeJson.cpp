#include "changes/FileChangeJson.h"

#include <QJsonValue>

namespace sbw {
namespace {

QJsonValue sizeValue(qint64 size)
{
    return size >= 0 ? QJsonValue(size) : QJsonValue();
}

} // namespace

QJsonObject fileChangeJson(const FileChange& change, bool withDiff)
{
    QJsonObject o{{QStringLiteral("path"), change.path},
                  {QStringLiteral("change"), changeKindName(change.kind)},
                  {QStringLiteral("type"), change.typeName()},
                  {QStringLiteral("size_before"), sizeValue(change.sizeBefore)},
                  {QStringLiteral("size_after"), sizeValue(change.sizeAfter)},
                  {QStringLiteral("has_diff"), change.hasDiff},
                  {QStringLiteral("diff_note"), change.diffNote}};
    if (withDiff && change.hasDiff)
        o.insert(QStringLiteral("diff"), QString::fromUtf8(change.diff));
    return o;
}

QJsonArray fileChangesJson(const FileChanges& changes, bool withDiff)
{
    QJsonArray files;
    for (const FileChange& change : changes.files)
        files.append(fileChangeJson(change, withDiff));
    return files;
}

QJsonObject fileChangesReport(const FileChanges& changes, bool withDiffs)
{
    const QString state = !changes.tracked          ? QStringLiteral("not tracked")
                          : changes.unknown.isEmpty() ? QStringLiteral("known")
                                                      : QStringLiteral("unknown");
    return {{QStringLiteral("state"), state},
            {QStringLiteral("summary"), changes.summary()},
            {QStringLiteral("unknown"), changes.unknown},
            {QStringLiteral("folders"), QJsonArray::fromStringList(changes.folders)},
            {QStringLiteral("created"), changes.created},
            {QStringLiteral("modified"), changes.modified},
            {QStringLiteral("deleted"), changes.deleted},
            {QStringLiteral("not_listed"), changes.notListed()},
            {QStringLiteral("files"), fileChangesJson(changes, withDiffs)}};
}

} // namespace sbw
