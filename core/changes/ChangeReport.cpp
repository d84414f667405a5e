#include "changes/ChangeReport.h"

#include "changes/FileChangeBounds.h"
#include "changes/FileDiff.h"
#include "changes/ScanComparison.h"
#include "changes/ScanEntry.h"

#include <QHash>
#include <QLocale>

namespace sbw {
namespace {

using namespace file_change_bounds;

/// The contents the guest sent for one path.
struct Contents
{
    std::optional<QByteArray> before;
    std::optional<QByteArray> after;
};

/// A cursor over the guest's output: NUL-separated records and counted byte blocks.
class ReportReader
{
public:
    explicit ReportReader(QByteArrayView bytes) : m_bytes(bytes) {}

    bool atEnd() const { return m_pos >= m_bytes.size(); }
    /// The next record; a last one without its NUL is returned as it is.
    QByteArrayView record()
    {
        if (atEnd())
            return {};
        const qsizetype end = m_bytes.indexOf('\0', m_pos);
        const qsizetype stop = end < 0 ? m_bytes.size() : end;
        const QByteArrayView record = m_bytes.sliced(m_pos, stop - m_pos);
        m_pos = stop + 1;
        return record;
    }
    /// `size` raw bytes; nullopt when fewer are left.
    std::optional<QByteArray> block(qint64 size)
    {
        if (size < 0 || size > kMaxDiffFileBytes || size > m_bytes.size() - m_pos)
            return std::nullopt;
        const QByteArray bytes = m_bytes.sliced(m_pos, size).toByteArray();
        m_pos += size;
        return bytes;
    }

private:
    QByteArrayView m_bytes;
    qsizetype m_pos = 0;
};

/// "#NAME VALUE" → VALUE when the record is that marker.
std::optional<QByteArrayView> marker(QByteArrayView record, QByteArrayView name)
{
    if (!record.startsWith(name) || record.size() <= name.size() || record[name.size()] != ' ')
        return std::nullopt;
    return record.sliced(name.size() + 1);
}

qint64 number(QByteArrayView text)
{
    bool ok = false;
    const qint64 value = text.trimmed().toByteArray().toLongLong(&ok);
    return ok ? value : -1;
}

QString tooManyEntries(const QStringList& folders)
{
    return QStringLiteral("%1 hold more than %2 entries; scanning them all would slow every command")
        .arg(folders.join(QStringLiteral(", ")), QLocale(QLocale::English, QLocale::UnitedStates).toString(kMaxScanEntries));
}

/// "#file", "#old", "#new" blocks up to "#end"; false when they are malformed or cut off.
bool readContents(ReportReader& reader, QHash<QByteArray, Contents>& contents)
{
    QByteArray path;
    while (!reader.atEnd()) {
        const QByteArrayView record = reader.record();
        if (record == "#end")
            return true;
        if (auto file = marker(record, "#file")) {
            path = file->toByteArray();
            continue;
        }
        const auto old = marker(record, "#old");
        const auto now = old ? old : marker(record, "#new");
        if (!now || path.isEmpty())
            return false;
        auto bytes = reader.block(number(*now));
        if (!bytes)
            return false;
        (old ? contents[path].before : contents[path].after) = std::move(bytes);
    }
    return false;
}

/// A file the guest sent no content for: too large, or past the files per row that get a diff.
void noteMissingDiff(FileChange& change)
{
    if (change.typeBefore != 'f' && change.typeAfter != 'f')
        return;
    if (std::max(change.sizeBefore, change.sizeAfter) > kMaxDiffFileBytes)
        change.diffNote = QStringLiteral("larger than %1 KiB: no diff").arg(kMaxDiffFileBytes / 1024);
    else
        change.diffNote = QStringLiteral("no diff: only %1 files per command get one").arg(kMaxDiffFiles);
}

} // namespace

FileChanges readChangeReport(QByteArrayView output, const QStringList& folders)
{
    ReportReader reader(output);
    const QByteArrayView first = reader.record();
    if (auto reason = marker(first, "#unknown"))
        return FileChanges::unknownBecause(folders, QString::fromUtf8(*reason));
    const auto counts = marker(first, "#counts");
    const auto changeBytes = marker(reader.record(), "#changes");
    if (!counts || !changeBytes)
        return FileChanges::unknownBecause(folders, QStringLiteral("the guest's scan gave no answer"));
    const QList<QByteArray> sides = counts->toByteArray().split(' ');
    if (sides.size() != 2 || number(sides[0]) > kMaxScanEntries || number(sides[1]) > kMaxScanEntries)
        return FileChanges::unknownBecause(folders, tooManyEntries(folders));
    if (number(*changeBytes) > kMaxChangeRecordBytes)
        return FileChanges::unknownBecause(
            folders, QStringLiteral("the changed names fill more than %1 MiB").arg(kMaxChangeRecordBytes >> 20));

    QList<ScanEntry> before;
    QList<ScanEntry> after;
    while (true) {
        if (reader.atEnd())
            return FileChanges::unknownBecause(folders, QStringLiteral("the guest's list of changes was cut off"));
        const QByteArrayView record = reader.record();
        if (record == "#contents")
            break;
        const bool afterSide = record.startsWith('\t');
        if (auto entry = parseScanRecord(afterSide ? record.sliced(1) : record))
            (afterSide ? after : before).append(*entry);
    }
    FileChanges changes = compareScans(before, after, kMaxListedFiles);
    changes.folders = folders;
    QHash<QByteArray, Contents> contents;
    const bool complete = readContents(reader, contents);
    for (FileChange& change : changes.files) {
        const auto found = contents.constFind(change.path.toUtf8());
        if (found != contents.cend())
            attachDiff(change, found->before, found->after);
        else if (complete)
            noteMissingDiff(change);
    }
    return changes;
}

} // namespace sbw
