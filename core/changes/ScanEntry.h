#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <optional>

namespace sbw {

/// One entry of a scan of the guest's watched folders, as the guest's `find -printf` writes it:
/// "PATH<TAB>TYPE SIZE MTIME", records separated by NUL. The path comes first so that sorted
/// records are sorted by path; it may hold any byte but NUL (tabs and newlines included), so the
/// metadata is read from the last tab. Folders are written with size and mtime 0: their size
/// and mtime change whenever an entry is added inside, which is that entry's change, not theirs.
struct ScanEntry
{
    QByteArray path;   ///< raw bytes from the guest
    char type = 0;     ///< find's %y: f d l p s b c D
    qint64 size = 0;   ///< bytes
    qint64 mtimeNs = 0; ///< ns since the epoch

    bool operator==(const ScanEntry&) const = default;
    bool isFile() const { return type == 'f'; }
};

/// Reads one record (without its NUL); nullopt for anything malformed (no tab, no absolute
/// path, a type or number that find does not write), which the caller drops.
std::optional<ScanEntry> parseScanRecord(QByteArrayView record);

/// "1700000000.1234567890" (find's %T@) as ns; nullopt when it is not such a number.
std::optional<qint64> parseFindTime(QByteArrayView text);

} // namespace sbw
