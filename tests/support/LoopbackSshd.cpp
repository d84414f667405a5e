#include "LoopbackSshd.h"

#include "TestEnvironment.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrl>
#include <QUrlQuery>
#include <csignal>
#include <sys/prctl.h>

namespace sbw::test {
namespace {

Expected<void> writeFile(const QString& path, const QByteArray& bytes,
                         QFile::Permissions permissions = QFile::ReadOwner | QFile::WriteOwner)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() ||
        !file.setPermissions(permissions))
        return makeError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

Expected<void> makeKey(const QString& path)
{
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                  QStringLiteral("-N"), QString(), QStringLiteral("-f"), path});
    if (!keygen.waitForFinished(30000) || keygen.exitStatus() != QProcess::NormalExit ||
        keygen.exitCode() != 0)
        return makeError(QStringLiteral("ssh-keygen failed for %1: %2")
                             .arg(path, QString::fromUtf8(keygen.readAllStandardError())));
    return {};
}

/// "TYPE BASE64" of an OpenSSH public key file (its comment left out).
QByteArray publicKey(const QString& path)
{
    const QList<QByteArray> fields = readFile(path).trimmed().split(' ');
    return fields.size() >= 2 ? fields[0] + ' ' + fields[1] : QByteArray();
}

/// Every process's parent, from /proc/PID/stat (field 4, after the command's parenthesis).
QHash<pid_t, pid_t> parents()
{
    QHash<pid_t, pid_t> parentOf;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        const pid_t pid = pid_t(entry.toInt(&isPid));
        if (!isPid)
            continue;
        const QByteArray stat = readFile(QStringLiteral("/proc/%1/stat").arg(entry));
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1)
            parentOf.insert(pid, pid_t(fields[1].toInt()));
    }
    return parentOf;
}

QSet<pid_t> descendantsOf(pid_t root)
{
    const QHash<pid_t, pid_t> parentOf = parents();
    QSet<pid_t> found;
    for (bool grew = true; grew;) {
        grew = false;
        for (auto it = parentOf.cbegin(); it != parentOf.cend(); ++it)
            if ((it.value() == root || found.contains(it.value())) && !found.contains(it.key())) {
                found.insert(it.key());
                grew = true;
            }
    }
    return found;
}

} // namespace

LoopbackSshd::LoopbackSshd() = default;

LoopbackSshd::~LoopbackSshd()
{
    kill();
}

Expected<void> LoopbackSshd::prepare()
{
    if (!m_dir.isValid())
        return makeError(QStringLiteral("cannot make a temporary folder for sshd"));
    // Debian's service makes sshd's privilege separation folder at each boot; without a service
    // manager nobody does, and sshd refuses to start without it.
    if (!QDir().mkpath(QStringLiteral("/run/sshd")))
        return makeError(QStringLiteral("cannot make /run/sshd"));
    for (const QString& key : {QStringLiteral("host_key"), QStringLiteral("client_key")})
        if (auto made = makeKey(path(key)); !made)
            return made;
    m_port = freeLoopbackPort();
    const QByteArray port = QByteArray::number(m_port);
    const QByteArray hostKey = publicKey(path(QStringLiteral("host_key.pub")));
    const QByteArray clientKey = publicKey(path(QStringLiteral("client_key.pub")));
    if (hostKey.isEmpty() || clientKey.isEmpty())
        return makeError(QStringLiteral("ssh-keygen wrote no public key in %1").arg(m_dir.path()));
    if (auto written = writeFile(path(QStringLiteral("authorized_keys")), clientKey + '\n');
        !written)
        return written;
    if (auto written = writeFile(path(QStringLiteral("known_hosts")),
                                 "[127.0.0.1]:" + port + ' ' + hostKey + '\n');
        !written)
        return written;
    // StrictModes no: the folder is under /tmp, which every user may write to, and sshd's
    // strict modes refuse key files below such a folder. UsePAM no: PAM's session modules
    // (pam_loginuid) fail in containers, and only public keys are accepted anyway.
    const QByteArray dir = QFile::encodeName(m_dir.path());
    const QByteArrayList config = {"Port " + port,
                                   "ListenAddress 127.0.0.1",
                                   "HostKey " + dir + "/host_key",
                                   "PidFile " + dir + "/sshd.pid",
                                   "AuthorizedKeysFile " + dir + "/authorized_keys",
                                   "PermitRootLogin prohibit-password",
                                   "PubkeyAuthentication yes",
                                   "PasswordAuthentication no",
                                   "KbdInteractiveAuthentication no",
                                   "UsePAM no",
                                   "StrictModes no"};
    if (auto written = writeFile(path(QStringLiteral("sshd_config")), config.join('\n') + '\n');
        !written)
        return written;
    // libvirt runs `COMMAND -p PORT -l root -i KEYFILE -T -e none -- 127.0.0.1 'sh -c …'`;
    // -F none: no ssh_config of root's; the host key is checked against this folder's file.
    const QByteArray wrapper = "#!/bin/sh\nexec ssh -F none -o UserKnownHostsFile=" + dir +
                               "/known_hosts -o GlobalKnownHostsFile=/dev/null "
                               "-o StrictHostKeyChecking=yes -o BatchMode=yes "
                               "-o IdentitiesOnly=yes \"$@\"\n";
    return writeFile(path(QStringLiteral("ssh")), wrapper,
                     QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

Expected<void> LoopbackSshd::start()
{
    if (m_port == 0)
        if (auto prepared = prepare(); !prepared)
            return prepared;
    m_sshd.setStandardOutputFile(QProcess::nullDevice());
    m_sshd.setStandardErrorFile(path(QStringLiteral("sshd.log")), QIODevice::Append);
    // The listener goes with the test process, even when it crashes.
    m_sshd.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    m_sshd.start(QStringLiteral("/usr/sbin/sshd"),
                 {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
                  path(QStringLiteral("sshd_config"))});
    QTcpSocket probe;
    const bool up = QTest::qWaitFor(
        [&] {
            if (m_sshd.state() == QProcess::NotRunning)
                return false;
            probe.abort();
            probe.connectToHost(QHostAddress::LocalHost, m_port);
            return probe.waitForConnected(200);
        },
        20000);
    probe.abort();
    if (up)
        return {};
    kill();
    return makeError(QStringLiteral("sshd did not listen on 127.0.0.1:%1 within 20 s: %2")
                         .arg(m_port)
                         .arg(QString::fromUtf8(readFile(path(QStringLiteral("sshd.log"))))));
}

void LoopbackSshd::kill()
{
    if (m_sshd.state() == QProcess::NotRunning)
        return;
    const pid_t listener = pid_t(m_sshd.processId());
    // Stopped first, so that none of them starts a process between the look in /proc and the
    // kill; killed afterwards, so that none is reparented away from the listener before then.
    ::kill(listener, SIGSTOP);
    QSet<pid_t> stopped;
    for (QSet<pid_t> found = descendantsOf(listener); !(found - stopped).isEmpty();
         found = descendantsOf(listener))
        for (const pid_t pid : found - stopped) {
            ::kill(pid, SIGSTOP);
            stopped.insert(pid);
        }
    for (const pid_t pid : std::as_const(stopped))
        ::kill(pid, SIGKILL);
    m_sshd.kill();
    m_sshd.waitForFinished();
}

QString LoopbackSshd::uri() const
{
    QUrl url;
    url.setScheme(QStringLiteral("qemu+ssh"));
    url.setUserName(QStringLiteral("root"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(m_port);
    url.setPath(QStringLiteral("/system"));
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("keyfile"), path(QStringLiteral("client_key")));
    query.addQueryItem(QStringLiteral("command"), path(QStringLiteral("ssh")));
    url.setQuery(query);
    return url.toString(QUrl::FullyEncoded);
}

} // namespace sbw::test
