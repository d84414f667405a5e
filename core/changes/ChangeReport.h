#pragma once

#include "base/Expected.h"
#include "changes/ScanEntry.h"

#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QStringList>

namespace sbw {

/// The two scans of one command, as ChangeWatch::afterScanCommand() sent them.
struct ScanPair
{
    QList<ScanEntry> before;
    QList<ScanEntry> after;
};

/// Reads the exec after's output (untrusted: records may be malformed, cut off or hostile;
/// malformed ones are dropped). Errors, a sentence for the row: the guest said why it has no
/// list, a scan passed FileChangeBounds::kMaxScanEntries in `folders`, the output is cut off.
Expected<ScanPair> readScanReport(QByteArrayView output, const QStringList& folders);

/// One file as ChangeWatch::contentsCommand() sent it.
struct FileContent
{
    qint64 size = 0;
    qint64 mtimeNs = 0;
    QByteArray bytes;
};

/// Reads the contents exec's output into path → content. Errors: the output is malformed, or
/// the bytes do not add up to the sizes stat gave (a file changed while it was read).
Expected<QHash<QByteArray, FileContent>> readContents(QByteArrayView output);

} // namespace sbw
