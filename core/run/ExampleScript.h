#pragma once

#include "base/Expected.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace sbw {

/// A ready-made ephemeral run for teaching and demos: a script in the examples folder
/// (paths::examplesDir(), the project's resources/examples) with its metadata in the leading
/// comment lines of the script:
///
///     # Example: CSV summary and chart      (title; required)
///     # Image: python-data                  (image template; default minimal)
///     # Files: sales.csv                    (input files beside the script, space-separated)
struct ExampleScript
{
    QString title;
    QString script;         ///< absolute path of the script
    QString language;       ///< "python" (.py) or "sh" (.sh)
    QString image = QStringLiteral("minimal");
    QStringList inputFiles; ///< absolute paths, uploaded into the run's working folder

    /// Reads an example script's metadata. Errors: unreadable file, no "# Example:" line,
    /// unknown extension, a listed input file that does not exist.
    static Expected<ExampleScript> read(const QString& scriptPath);
    /// Every example in paths::examplesDir() and its sub-folders (one level), by title.
    /// Scripts without an "# Example:" line are not examples and are left out.
    static QList<ExampleScript> all();
};

} // namespace sbw
