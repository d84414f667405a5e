#include "changes/ChangeReport.h"

#include "changes/FileChangeBounds.h"

#include <QLocale>

namespace sbw {
namespace {

using namespace file_change_bounds;

/// A cursor over NUL-separated records.
class RecordReader
{
public:
    explicit RecordReader(QByteArrayView bytes) : m_bytes(bytes) {}

    bool atEnd() const { return m_pos >= m_bytes.size(); }
    /// The next record; a last one without its NUL as it is.
    QByteArrayView next()
    {
        if (atEnd())
            return {};
        const qsizetype end = m_bytes.indexOf('\0', m_pos);
        const qsizetype stop = end < 0 ? m_bytes.size() : end;
        const QByteArrayView record = m_bytes.sliced(m_pos, stop - m_pos);
        m_pos = stop + 1;
        return record;
    }
    QByteArrayView rest() const { return atEnd() ? QByteArrayView() : m_bytes.sliced(m_pos); }

private:
    QByteArrayView m_bytes;
    qsizetype m_pos = 0;
};

Error tooManyEntries(const QStringList& folders)
{
    return makeError(QStringLiteral("%1 hold more than %2 entries; scanning them all would slow every command")
                         .arg(folders.join(QStringLiteral(", ")),
                              QLocale(QLocale::English, QLocale::UnitedStates).toString(kMaxScanEntries)));
}

/// "SIZE MTIME PATH" as stat --printf '%s %.9Y %n' writes it.
std::optional<std::pair<QByteArray, FileContent>> statRecord(QByteArrayView record)
{
    const qsizetype first = record.indexOf(' ');
    const qsizetype second = first < 0 ? -1 : record.indexOf(' ', first + 1);
    if (second < 0)
        return std::nullopt;
    bool ok = false;
    FileContent content;
    content.size = record.first(first).toLongLong(&ok);
    const auto mtime = parseFindTime(record.sliced(first + 1, second - first - 1));
    if (!ok || content.size < 0 || content.size > kMaxDiffFileBytes || !mtime)
        return std::nullopt;
    content.mtimeNs = *mtime;
    return std::pair{record.sliced(second + 1).toByteArray(), content};
}

} // namespace

Expected<ScanPair> readScanReport(QByteArrayView output, const QStringList& folders)
{
    RecordReader reader(output);
    const QByteArrayView first = reader.next();
    if (first.startsWith("#unknown "))
        return makeError(QString::fromUtf8(first.sliced(9)));
    if (first != "#before")
        return makeError(QStringLiteral("the guest's scan gave no answer"));
    ScanPair pair;
    QList<ScanEntry>* side = &pair.before;
    for (QByteArrayView record = reader.next(); record != "#end"; record = reader.next()) {
        if (reader.atEnd() && record != "#end")
            return makeError(QStringLiteral("the guest's list of files was cut off"));
        if (record == "#after") {
            side = &pair.after;
            continue;
        }
        if (auto entry = parseScanRecord(record))
            side->append(*entry);
        if (side->size() > kMaxScanEntries)
            return tooManyEntries(folders);
    }
    return pair;
}

Expected<QHash<QByteArray, FileContent>> readContents(QByteArrayView output)
{
    RecordReader reader(output);
    QList<std::pair<QByteArray, FileContent>> files;
    for (QByteArrayView record = reader.next(); record != "#cat"; record = reader.next()) {
        if (reader.atEnd())
            return makeError(QStringLiteral("the guest sent no file contents"));
        auto file = statRecord(record);
        if (!file)
            return makeError(QStringLiteral("the guest's file sizes are unreadable"));
        files.append(*file);
    }
    QByteArrayView bytes = reader.rest();
    qint64 total = 0;
    for (const auto& [path, content] : files)
        total += content.size;
    if (total != bytes.size())
        return makeError(QStringLiteral("the files changed while they were read"));
    QHash<QByteArray, FileContent> contents;
    for (auto& [path, content] : files) {
        content.bytes = bytes.first(content.size).toByteArray();
        bytes = bytes.sliced(content.size);
        contents.insert(path, content);
    }
    return contents;
}

} // namespace sbw
