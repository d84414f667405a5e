#include "log/FileChangeStore.h"

#include "log/SecretMasker.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace sbw::file_change_store {
namespace {

/// Masked, and never null: Qt SQL binds a null string as NULL, and the columns are NOT NULL.
QString masked(const QString& text, const QList<QByteArray>& secrets)
{
    const QString result = QString::fromUtf8(SecretMasker::maskAll(text.toUtf8(), secrets));
    return result.isNull() ? QString::fromLatin1("") : result;
}

QByteArray masked(const QByteArray& bytes, const QList<QByteArray>& secrets)
{
    const QByteArray result = SecretMasker::maskAll(bytes, secrets);
    return result.isNull() ? QByteArray("") : result;
}

QString typeText(char type)
{
    return type ? QString(QLatin1Char(type)) : QString::fromLatin1("");
}

char typeFrom(const QVariant& value)
{
    const QString text = value.toString();
    return text.isEmpty() ? 0 : text.front().toLatin1();
}

Error sqlError(const QString& what, const QSqlQuery& query)
{
    return makeError(QStringLiteral("command log: %1: %2").arg(what, query.lastError().text()));
}

} // namespace

std::vector<const char*> migration()
{
    return {"ALTER TABLE actions ADD COLUMN changes_state TEXT NOT NULL DEFAULT ''", // '', known, unknown
            "ALTER TABLE actions ADD COLUMN changes_note TEXT NOT NULL DEFAULT ''",  // why unknown
            "ALTER TABLE actions ADD COLUMN changes_folders TEXT NOT NULL DEFAULT '[]'", // JSON array
            "ALTER TABLE actions ADD COLUMN changes_created INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE actions ADD COLUMN changes_modified INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE actions ADD COLUMN changes_deleted INTEGER NOT NULL DEFAULT 0",
            "CREATE TABLE file_changes("
            " action_id INTEGER NOT NULL REFERENCES actions(id) ON DELETE CASCADE,"
            " position INTEGER NOT NULL,"     // order in the row's list (by path)
            " path TEXT NOT NULL,"            // secrets masked
            " change TEXT NOT NULL,"          // created, modified, deleted
            " type_before TEXT NOT NULL,"     // find's %y letter, '' when absent
            " type_after TEXT NOT NULL,"
            " size_before INTEGER NOT NULL,"  // -1 when absent
            " size_after INTEGER NOT NULL,"
            " diff BLOB NOT NULL,"            // unified diff, secrets masked; '' for none
            " diff_note TEXT NOT NULL,"       // why there is no diff
            " PRIMARY KEY(action_id, position))"};
}

QVariantList headerValues(const FileChanges& changes, const QList<QByteArray>& secrets)
{
    const QString state = !changes.tracked ? QString::fromLatin1("")
                          : changes.unknown.isEmpty() ? QStringLiteral("known") : QStringLiteral("unknown");
    QJsonArray folders;
    for (const QString& folder : changes.folders)
        folders.append(masked(folder, secrets));
    return {state, masked(changes.unknown, secrets),
            QString::fromUtf8(QJsonDocument(folders).toJson(QJsonDocument::Compact)), changes.created,
            changes.modified, changes.deleted};
}

FileChanges headerFrom(const QVariantList& values)
{
    FileChanges changes;
    changes.tracked = !values.value(0).toString().isEmpty();
    changes.unknown = values.value(1).toString();
    for (const QJsonValue& folder : QJsonDocument::fromJson(values.value(2).toByteArray()).array())
        changes.folders.append(folder.toString());
    changes.created = values.value(3).toLongLong();
    changes.modified = values.value(4).toLongLong();
    changes.deleted = values.value(5).toLongLong();
    return changes;
}

Expected<void> writeFiles(QSqlDatabase db, qint64 id, const FileChanges& changes, const QList<QByteArray>& secrets)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("INSERT OR REPLACE INTO file_changes(action_id, position, path, change, type_before, "
                                 "type_after, size_before, size_after, diff, diff_note) VALUES(?,?,?,?,?,?,?,?,?,?)"));
    for (int position = 0; position < changes.files.size(); ++position) {
        const FileChange& file = changes.files[position];
        query.addBindValue(id);
        query.addBindValue(position);
        query.addBindValue(masked(file.path, secrets));
        query.addBindValue(changeKindName(file.kind));
        query.addBindValue(typeText(file.typeBefore));
        query.addBindValue(typeText(file.typeAfter));
        query.addBindValue(file.sizeBefore);
        query.addBindValue(file.sizeAfter);
        query.addBindValue(masked(file.diff, secrets));
        query.addBindValue(masked(file.diffNote, secrets));
        if (!query.exec())
            return sqlError(QStringLiteral("cannot store the file changes of row %1").arg(id), query);
    }
    return {};
}

Expected<void> readFiles(QSqlDatabase db, QList<ActionRecord>& records, bool withDiffs)
{
    QHash<qint64, ActionRecord*> byId;
    QStringList ids;
    for (ActionRecord& record : records) {
        if (record.fileChanges.tracked && record.fileChanges.total() > 0) {
            byId.insert(record.id, &record);
            ids << QString::number(record.id);
        }
    }
    if (ids.isEmpty())
        return {};
    QSqlQuery query(db);
    // The ids are this process's integers, not text from anywhere else.
    if (!query.exec(QStringLiteral("SELECT action_id, path, change, type_before, type_after, size_before, size_after, "
                                   "%1, length(diff) > 0, diff_note FROM file_changes WHERE action_id IN (%2) "
                                   "ORDER BY action_id, position")
                        .arg(withDiffs ? QLatin1String("diff") : QLatin1String("NULL"), ids.join(QLatin1Char(',')))))
        return sqlError(QStringLiteral("cannot read file changes"), query);
    while (query.next()) {
        FileChange file;
        file.path = query.value(1).toString();
        file.kind = changeKindFromName(query.value(2).toString()).value_or(ChangeKind::Modified);
        file.typeBefore = typeFrom(query.value(3));
        file.typeAfter = typeFrom(query.value(4));
        file.sizeBefore = query.value(5).toLongLong();
        file.sizeAfter = query.value(6).toLongLong();
        file.diff = query.value(7).toByteArray();
        file.hasDiff = query.value(8).toBool();
        file.diffNote = query.value(9).toString();
        byId.value(query.value(0).toLongLong())->fileChanges.files.append(file);
    }
    return {};
}

} // namespace sbw::file_change_store
