#include "PlainSshClient.h"

#include "base/DataPaths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QThread>

namespace sbw::test {

Expected<PlainSshClient> PlainSshClient::create(const QString& socketPath, const QString& hostKey, const QString& dir)
{
    QFile knownHosts(dir + QStringLiteral("/known_hosts"));
    if (!knownHosts.open(QIODevice::WriteOnly)
        || knownHosts.write("sandbox " + hostKey.section(QLatin1Char(' '), 0, 1).toUtf8() + "\n") < 0)
        return makeError(QStringLiteral("cannot write %1").arg(knownHosts.fileName()));
    return PlainSshClient(dir, {QStringLiteral("-F"), QStringLiteral("/dev/null"),
                                QStringLiteral("-i"), paths::dataDir() + QStringLiteral("/ssh/id_ed25519"),
                                QStringLiteral("-o"), QStringLiteral("ProxyCommand=socat - UNIX-CONNECT:") + socketPath,
                                QStringLiteral("-o"), QStringLiteral("UserKnownHostsFile=") + knownHosts.fileName(),
                                QStringLiteral("-o"), QStringLiteral("StrictHostKeyChecking=yes"),
                                QStringLiteral("-o"), QStringLiteral("HostKeyAlias=sandbox"),
                                QStringLiteral("-o"), QStringLiteral("IdentitiesOnly=yes"),
                                QStringLiteral("-o"), QStringLiteral("BatchMode=yes")});
}

PlainSshClient::PlainSshClient(const QString& dir, const QStringList& options) : m_dir(dir), m_options(options) {}

Expected<qint64> PlainSshClient::sshMs(const QString& command, bool pty) const
{
    QStringList arguments = m_options;
    if (pty)
        arguments.append(QStringLiteral("-tt"));
    return runMs(QStringLiteral("ssh"), arguments + QStringList{QStringLiteral("root@sandbox"), command});
}

Expected<qint64> PlainSshClient::sftpMs(const QByteArray& commands) const
{
    QFile batch(m_dir + QStringLiteral("/batch"));
    if (!batch.open(QIODevice::WriteOnly) || batch.write(commands) != commands.size())
        return makeError(QStringLiteral("cannot write the sftp batch file %1").arg(batch.fileName()));
    batch.close();
    return runMs(QStringLiteral("sftp"),
                 m_options + QStringList{QStringLiteral("-b"), batch.fileName(), QStringLiteral("root@sandbox")});
}

Expected<qint64> PlainSshClient::runMs(const QString& program, const QStringList& arguments)
{
    // The guest starts the next sshd on the port once the previous one has exited.
    QThread::msleep(500);
    QProcess process;
    process.setStandardOutputFile(QProcess::nullDevice());
    QElapsedTimer timer;
    timer.start();
    process.start(program, arguments);
    if (!process.waitForFinished(600000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return makeError(QStringLiteral("%1 failed (exit %2): %3")
                             .arg(program)
                             .arg(process.exitCode())
                             .arg(QString::fromLocal8Bit(process.readAllStandardError())));
    return timer.elapsed();
}

} // namespace sbw::test
