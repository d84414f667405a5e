#include "CliProcess.h"

#include <QProcess>
#include <QProcessEnvironment>

namespace sbw::test {

CliResult runCli(const QString& cliPath, const QString& dataHome, const QStringList& arguments)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), dataHome);
    process.setProcessEnvironment(env);
    process.start(cliPath, arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(30000))
        process.kill();
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

} // namespace sbw::test
