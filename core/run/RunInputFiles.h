#pragma once

#include "action/InputFile.h"
#include "base/Expected.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace sbw {

class SftpClient;

/// Checks the host files `hostPaths` before a run: each must exist, be a regular file (or a
/// symlink to one) and be readable, and their names must differ from each other, from the
/// script (`main.py`, `main.sh`) and from the artifact folder `out`. Errors are sentences naming
/// the file: "input file /x/data.csv does not exist", "input file /x is a folder, not a file",
/// "cannot read input file /x/a.bin: Permission denied", "input files /a/data.csv and
/// /b/data.csv have the same name data.csv; rename one of them", "input file /x/main.py would
/// replace the script main.py; rename it", "input file /x/out would take the place of the out/
/// folder for artifacts; rename it".
Expected<QList<InputFile>> checkInputFiles(const QStringList& hostPaths);

/// Whether `name` may be an input file's name in the working folder: one plain path component
/// (not empty, ".", "..", no '/' or NUL), and neither the script's (`main.py`, `main.sh`) nor
/// the artifact folder's (`out`). `label` names the file in the error, e.g. "input file
/// /x/main.py": "LABEL must be a plain file name (no folders, no . or ..)", "LABEL would
/// replace the script main.py; rename it", "LABEL would take the place of the out/ folder for
/// artifacts; rename it".
Expected<void> checkInputFileName(const QString& label, const QString& name);

/// The input files of a run request as a person reads them: "data.csv (52 bytes), chart.png
/// (3.0 KiB)" (byteSizeText() sizes).
QString inputFilesText(const QList<InputFile>& files);

/// Copies `files` byte for byte into the guest folder `guestFolder` (an absolute path; created
/// with its parent's mode when missing) under their names, over `sftp`. Blocks. Errors: "cannot
/// upload input file NAME: REASON" with the SFTP or host error.
Expected<void> uploadInputFiles(SftpClient& sftp, const QList<InputFile>& files,
                                const QByteArray& guestFolder);

} // namespace sbw
