#include "changes/ScanComparison.h"

#include <map>

namespace sbw {
namespace {

struct Sides
{
    const ScanEntry* before = nullptr;
    const ScanEntry* after = nullptr;
};

std::optional<ChangeKind> kindOf(const Sides& sides)
{
    if (!sides.before)
        return ChangeKind::Created;
    if (!sides.after)
        return ChangeKind::Deleted;
    if (*sides.before == *sides.after)
        return std::nullopt;
    return ChangeKind::Modified;
}

FileChange changeOf(const QByteArray& path, const Sides& sides, ChangeKind kind)
{
    FileChange change;
    change.path = QString::fromUtf8(path);
    change.kind = kind;
    if (sides.before) {
        change.typeBefore = sides.before->type;
        change.sizeBefore = sides.before->size;
    }
    if (sides.after) {
        change.typeAfter = sides.after->type;
        change.sizeAfter = sides.after->size;
    }
    return change;
}

} // namespace

FileChanges compareScans(const QList<ScanEntry>& before, const QList<ScanEntry>& after, int maxListed)
{
    std::map<QByteArray, Sides> byPath; // sorted by bytes: the order `LC_ALL=C sort` gives
    for (const ScanEntry& entry : before)
        byPath[entry.path].before = &entry;
    for (const ScanEntry& entry : after)
        byPath[entry.path].after = &entry;
    FileChanges changes;
    changes.tracked = true;
    for (const auto& [path, sides] : byPath) {
        const auto kind = kindOf(sides);
        if (!kind)
            continue;
        (*kind == ChangeKind::Created ? changes.created
                                      : *kind == ChangeKind::Deleted ? changes.deleted : changes.modified)++;
        if (changes.files.size() < maxListed)
            changes.files.append(changeOf(path, sides, *kind));
    }
    return changes;
}

} // namespace sbw
