#pragma once

#include "changes/FileChange.h"

#include <QByteArrayView>
#include <QStringList>

namespace sbw {

/// The file changes in what ChangeWatch::afterScanCommand() printed (`output`, untrusted: any
/// record may be malformed, cut off or hostile): compared, bounded (FileChangeBounds) and with
/// diffs of the small text files it sent. Never fails: what it cannot read makes the changes
/// unknown with the reason. Runs `diff` on the host: call from a worker thread.
FileChanges readChangeReport(QByteArrayView output, const QStringList& folders);

} // namespace sbw
