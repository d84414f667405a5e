#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace sbw::test {

/// What a finished `sbw` process left: its exit status and all it wrote.
struct CliResult
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

/// Runs the CLI at `cliPath` with `arguments` and XDG_DATA_HOME=`dataHome`, with its stdin closed
/// (`sbw mcp` serves until stdin ends), and waits for it; a process still running after 30 s is
/// killed (exitCode then says so with -1 or the kill's status).
CliResult runCli(const QString& cliPath, const QString& dataHome, const QStringList& arguments);

} // namespace sbw::test
