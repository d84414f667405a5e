#pragma once

#include <QByteArray>
#include <QString>

namespace sbw {

/// A file placed in a run's working folder before its script starts, as the run, the approver
/// and the log see it: its name there, its size, and where its bytes come from: a host file
/// (a person's run; checkInputFiles() fills it) or the bytes an agent sent (run_code's `files`;
/// mcp::parseRunInputFiles() fills it).
struct InputFile
{
    QString name;       ///< name in the run's working folder
    qint64 size = 0;    ///< bytes (for a host file: when it was checked)
    QString hostPath;   ///< absolute host path; empty when `content` holds the bytes
    QByteArray content; ///< the bytes of a file that has no host path
};

} // namespace sbw
