#pragma once

#include "guest/SftpClient.h"

#include <QByteArray>
#include <QString>

namespace sbw {

/// How the file tree shows what a guest's SFTP server says about a file. Everything in an
/// SftpEntry comes from the guest and may hold any bytes, so names, owners and groups are shown
/// with control characters (newlines and tabs included), bidi overrides and other hidden
/// characters visibly escaped (VisibleText.h).

/// A guest name or path (raw bytes) for display, as visibleName() writes it: UTF-8, with bytes
/// that are not UTF-8 as "\xff", backslashes doubled, "\n" and "\t" written out and every
/// other hidden character as its visible form, so two different names never look the same
/// (tests/fuzz/fuzz_file_entry checks it). A download names its host file so too.
QString fileNameText(const QByteArray& name);

/// st_mode as `ls -l` shows it: type letter and permissions, e.g. "drwxr-xr-x", "-rwsr-x--T".
QString fileModeText(quint32 mode);

/// The size as a short human figure in the locale's units ("1.5 KiB"); empty for a folder.
QString fileSizeText(const SftpEntry& entry);

/// The modification time in local time, "yyyy-MM-dd HH:mm"; empty when the time is invalid.
QString fileModifiedText(const SftpEntry& entry);

/// "user:group", each the server's name when it gave one (escaped as names are), else the
/// numeric id.
QString fileOwnerText(const SftpEntry& entry);

/// Where an entry goes in its folder's listing: folders first, then by the name decoded as
/// UTF-8 without regard to case, raw bytes breaking ties. A strict weak order, as
/// std::stable_sort needs (tests/fuzz/fuzz_file_entry checks it).
struct FileListingKey
{
    bool folder = false;
    QString foldedName; ///< the name decoded as UTF-8 (invalid bytes as U+FFFD), case-folded
    QByteArray name;    ///< the raw name

    static FileListingKey of(const SftpEntry& entry);
    bool operator<(const FileListingKey& other) const;
};

} // namespace sbw
