#include "changes/FileChange.h"

#include <QLocale>

namespace sbw {

QString changeKindName(ChangeKind kind)
{
    switch (kind) {
    case ChangeKind::Created:
        return QStringLiteral("created");
    case ChangeKind::Modified:
        return QStringLiteral("modified");
    case ChangeKind::Deleted:
        return QStringLiteral("deleted");
    }
    return {};
}

std::optional<ChangeKind> changeKindFromName(const QString& name)
{
    for (ChangeKind kind : {ChangeKind::Created, ChangeKind::Modified, ChangeKind::Deleted}) {
        if (changeKindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

QString FileChange::typeName() const
{
    switch (typeAfter ? typeAfter : typeBefore) {
    case 'f':
        return QStringLiteral("file");
    case 'd':
        return QStringLiteral("folder");
    case 'l':
        return QStringLiteral("symlink");
    case 'p':
        return QStringLiteral("fifo");
    case 's':
        return QStringLiteral("socket");
    case 'b':
    case 'c':
        return QStringLiteral("device");
    default:
        return QStringLiteral("entry");
    }
}

FileChanges FileChanges::unknownBecause(const QStringList& folders, const QString& reason)
{
    FileChanges changes;
    changes.tracked = true;
    changes.folders = folders;
    changes.unknown = reason;
    return changes;
}

QString FileChanges::summary() const
{
    if (!tracked)
        return {};
    if (!unknown.isEmpty())
        return QStringLiteral("file changes unknown: %1").arg(unknown);
    if (total() == 0)
        return QStringLiteral("no files changed");
    const QLocale c(QLocale::English, QLocale::UnitedStates); // "1,204"
    return QStringLiteral("%1 %2 changed (%3 created, %4 modified, %5 deleted)")
        .arg(c.toString(total()), total() == 1 ? QStringLiteral("file") : QStringLiteral("files"),
             c.toString(created), c.toString(modified), c.toString(deleted));
}

QString FileChanges::moreText() const
{
    if (notListed() <= 0)
        return {};
    return QStringLiteral("%1 more %2 changed, not listed")
        .arg(QLocale(QLocale::English, QLocale::UnitedStates).toString(notListed()),
             notListed() == 1 ? QStringLiteral("file") : QStringLiteral("files"));
}

} // namespace sbw
