#pragma once

#include "action/ActionRecord.h"
#include "base/Expected.h"

#include <QByteArray>
#include <QList>
#include <QSqlDatabase>

#include <vector>

namespace sbw::file_change_store {

/// The actions table's columns of a row's file changes (format 5), in the order headerFrom()
/// reads them.
inline constexpr const char* kColumns =
    "changes_state, changes_note, changes_folders, changes_created, changes_modified, changes_deleted";
/// The statements that add them and the file_changes table (one row per listed file).
std::vector<const char*> migration();

/// The header columns' values of `changes`, in kColumns' order, secrets masked.
QVariantList headerValues(const FileChanges& changes, const QList<QByteArray>& secrets);
/// The header from the values of kColumns, in that order; readFiles() adds the files.
FileChanges headerFrom(const QVariantList& values);

/// Stores the listed files of action `id`, secrets masked in paths and diffs. Runs in the
/// caller's transaction.
Expected<void> writeFiles(QSqlDatabase db, qint64 id, const FileChanges& changes, const QList<QByteArray>& secrets);
/// Adds the listed files to each tracked record, with the diffs' text when `withDiffs`.
Expected<void> readFiles(QSqlDatabase db, QList<ActionRecord>& records, bool withDiffs);

} // namespace sbw::file_change_store
