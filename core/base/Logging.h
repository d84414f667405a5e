#pragma once

#include <QLoggingCategory>
#include <QString>

namespace sbw {

/// Sends every Qt log message (qDebug/qInfo/qWarning/qCritical of every category) to spdlog:
/// a rotating file `<logDir>/<program>.log` (5 files of at most 5 MiB) and, when `toStderr` is
/// set, also standard error at warning level and above. Call once, first thing in main().
/// Returns the log file path, or an empty string if the folder cannot be created (then only
/// stderr is used).
QString initLogging(const QString& program, bool toStderr);

} // namespace sbw

// One category per area, as Qt Creator does; enable debug output with
// QT_LOGGING_RULES="sbw.*.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcVirt)    // libvirt connection, events, domains, storage
Q_DECLARE_LOGGING_CATEGORY(lcChannel) // SSH guest channel
Q_DECLARE_LOGGING_CATEGORY(lcRun)     // ephemeral runs
Q_DECLARE_LOGGING_CATEGORY(lcLog)     // the command log
