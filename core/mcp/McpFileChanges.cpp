#include "mcp/McpFileChanges.h"

#include "changes/FileChangeBounds.h"
#include "changes/FileChangeJson.h"
#include "mcp/McpToolSchema.h"

#include <QJsonArray>

namespace sbw::mcp {

void addFileChanges(McpToolResult& result, const FileChanges& changes)
{
    QString summary = changes.summary();
    if (!changes.moreText().isEmpty())
        summary += QStringLiteral("; ") + changes.moreText();
    result.structured.insert(QStringLiteral("files_changed"), fileChangesJson(changes, true));
    result.structured.insert(QStringLiteral("files_changed_summary"), summary);
    result.structuredOnly << QStringLiteral("files_changed");
    result.end.fileChanges = changes;
}

QJsonObject withFileChangesSchema(QJsonObject schema)
{
    using namespace file_change_bounds;
    const QJsonObject file = objectSchema(
        {{QStringLiteral("path"), stringSchema(QStringLiteral("Absolute guest path."))},
         {QStringLiteral("change"), enumSchema(QStringLiteral("What happened to it."),
                                               {QStringLiteral("created"), QStringLiteral("modified"),
                                                QStringLiteral("deleted")})},
         {QStringLiteral("type"), stringSchema(QStringLiteral("file, folder, symlink, fifo, socket or device."))},
         {QStringLiteral("size_before"), nullableIntegerSchema(QStringLiteral("Bytes; null when it did not exist."))},
         {QStringLiteral("size_after"), nullableIntegerSchema(QStringLiteral("Bytes; null when deleted."))},
         {QStringLiteral("has_diff"), booleanSchema(QStringLiteral("Whether diff is given."))},
         {QStringLiteral("diff"), stringSchema(QStringLiteral("Unified diff of a text file (diff -u)."))},
         {QStringLiteral("diff_note"), stringSchema(QStringLiteral("Why there is no diff, when there is none."))}},
        {QStringLiteral("path"), QStringLiteral("change"), QStringLiteral("type"), QStringLiteral("size_before"),
         QStringLiteral("size_after"), QStringLiteral("has_diff"), QStringLiteral("diff_note")});
    QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    properties.insert(
        QStringLiteral("files_changed"),
        QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                    {QStringLiteral("items"), file},
                    {QStringLiteral("description"),
                     QStringLiteral("Files created, modified and deleted under /root and the working "
                                    "folder, by path; at most %1, with a diff for text files up to %2 KiB "
                                    "(the first %3 of them).")
                         .arg(kMaxListedFiles)
                         .arg(kMaxDiffFileBytes / 1024)
                         .arg(kMaxDiffFiles)}});
    properties.insert(QStringLiteral("files_changed_summary"),
                      stringSchema(QStringLiteral("One line: how many files changed and how, how many were "
                                                  "not listed, or why the changes are unknown.")));
    schema.insert(QStringLiteral("properties"), properties);
    QJsonArray required = schema.value(QLatin1String("required")).toArray();
    required << QStringLiteral("files_changed") << QStringLiteral("files_changed_summary");
    schema.insert(QStringLiteral("required"), required);
    return schema;
}

} // namespace sbw::mcp
