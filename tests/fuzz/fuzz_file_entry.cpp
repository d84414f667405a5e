// What the file tree shows of a guest's SFTP entries (FileEntryText: name, size, mode, owner,
// time, listing order), from names and attributes the guest chose: every cell is one line of
// plain text, two different names never look the same, the listing order is a strict weak order.
//
// Input: 29 bytes of attributes (little-endian: mode u32, size i64, mtime i64, uid u32,
// gid u32, then a type byte: bits 0-2 the first entry's SftpEntry::Type, bits 3 and 4 whether
// the second and third are folders), then NUL-separated fields: three names, owner, group.

#include "FuzzCheck.h"
#include "base/VisibleText.h"
#include "files/FileEntryText.h"

#include <QList>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

template <typename T> T take(const uint8_t*& data)
{
    T value;
    std::memcpy(&value, data, sizeof value);
    data += sizeof value;
    return value;
}

/// Text for one table cell: one line, nothing that acts on the view.
bool isPlainCellText(const QString& text)
{
    for (char32_t c : text.toUcs4())
        if (c == U'\n' || c == U'\t' || sbw::isHiddenCharacter(c))
            return false;
    return true;
}

void checkCells(const sbw::SftpEntry& entry)
{
    SBW_FUZZ_CHECK(isPlainCellText(sbw::fileNameText(entry.name)), "name cell is plain text");
    SBW_FUZZ_CHECK(isPlainCellText(sbw::fileOwnerText(entry)), "owner cell is plain text");
    SBW_FUZZ_CHECK(isPlainCellText(sbw::fileSizeText(entry)), "size cell is plain text");
    SBW_FUZZ_CHECK(isPlainCellText(sbw::fileModifiedText(entry)), "time cell is plain text");
    SBW_FUZZ_CHECK(sbw::fileModeText(entry.mode).size() == 10, "mode cell has 10 letters");
}

void checkOrder(const sbw::FileListingKey& a, const sbw::FileListingKey& b,
                const sbw::FileListingKey& c)
{
    SBW_FUZZ_CHECK(!(a < a), "listing order is irreflexive");
    SBW_FUZZ_CHECK(!(a < b && b < a), "listing order is asymmetric");
    SBW_FUZZ_CHECK(!(a < b && b < c) || a < c, "listing order is transitive");
    const bool abEqual = !(a < b) && !(b < a);
    const bool bcEqual = !(b < c) && !(c < b);
    const bool acEqual = !(a < c) && !(c < a);
    SBW_FUZZ_CHECK(!(abEqual && bcEqual) || acEqual, "equal listing places are transitive");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    constexpr size_t kHeader = 4 + 8 + 8 + 4 + 4 + 1;
    if (size < kHeader)
        return 0;
    const uint8_t* at = data;
    sbw::SftpEntry entry;
    entry.mode = take<quint32>(at);
    entry.size = take<qint64>(at);
    entry.mtime = QDateTime::fromSecsSinceEpoch(take<qint64>(at), Qt::UTC);
    entry.uid = take<quint32>(at);
    entry.gid = take<quint32>(at);
    const uint8_t type = take<uint8_t>(at);
    entry.type = sbw::SftpEntry::Type((type & 7) % 5);

    const QList<QByteArray> fields =
        QByteArray(reinterpret_cast<const char*>(at), qsizetype(size - kHeader)).split('\0');
    const auto field = [&](int i) { return i < fields.size() ? fields[i] : QByteArray(); };
    entry.name = field(0);
    // SftpClient reads owner and group as UTF-8 (libssh parses them from the long listing).
    entry.owner = QString::fromUtf8(field(3));
    entry.group = QString::fromUtf8(field(4));
    checkCells(entry);

    sbw::SftpEntry second;
    second.name = field(1);
    second.type = type & 8 ? sbw::SftpEntry::Type::Directory : sbw::SftpEntry::Type::File;
    sbw::SftpEntry third;
    third.name = field(2);
    third.type = type & 16 ? sbw::SftpEntry::Type::Directory : sbw::SftpEntry::Type::File;
    SBW_FUZZ_CHECK(second.name == third.name ||
                       sbw::fileNameText(second.name) != sbw::fileNameText(third.name),
                   "different names look different");
    const auto a = sbw::FileListingKey::of(entry);
    const auto b = sbw::FileListingKey::of(second);
    const auto c = sbw::FileListingKey::of(third);
    checkOrder(a, b, c);
    checkOrder(b, c, a);
    checkOrder(c, a, b);
    checkOrder(a, c, b);
    checkOrder(b, a, c);
    checkOrder(c, b, a);
    return 0;
}
