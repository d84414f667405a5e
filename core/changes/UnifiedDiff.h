#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QString>

namespace sbw {

/// The unified diff (3 lines of context) from `before` to `after`, as GNU diff writes it
/// (`diff -u --text`, with `beforeLabel` and `afterLabel` as the file names); empty when they
/// are equal. Blocks while diff runs: call from a worker thread. Errors: diff cannot be run.
Expected<QByteArray> unifiedDiff(const QByteArray& before, const QByteArray& after, const QString& beforeLabel,
                                 const QString& afterLabel);

} // namespace sbw
