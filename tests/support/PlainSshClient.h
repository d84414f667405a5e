#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace sbw::test {

/// OpenSSH's own `ssh` and `sftp`, logged in as root on a guest through the host end of its SSH
/// channel (`ProxyCommand=socat - UNIX-CONNECT:PATH`), with the workbench's client key
/// (<data>/ssh/id_ed25519) and the guest's host key pinned: the baseline the benches measure
/// the workbench's own SSH channel against. The guest serves one SSH connection per port at a
/// time, so the workbench's session on that port must be closed first; each call waits 0.5 s
/// before it starts its client, for the guest to start the next sshd on the port.
class PlainSshClient
{
public:
    /// A client for the channel socket `socketPath` (channelSocketPath()) of a guest whose host
    /// key is `hostKey` (WorkspaceRecord::hostKey, "ssh-ed25519 BASE64 [COMMENT]"). Writes its
    /// known_hosts file, and later its sftp batch file, into the existing folder `dir`. Errors:
    /// known_hosts cannot be written.
    static Expected<PlainSshClient> create(const QString& socketPath, const QString& hostKey, const QString& dir);

    /// Wall time in ms of `ssh [-tt] root@sandbox COMMAND`, its stdout discarded; `pty` asks for
    /// a pseudo-terminal in the guest, as a terminal tab has. The time includes the SSH
    /// handshake. Errors: ssh did not exit 0 within 600 s (the message gives its exit status
    /// and stderr).
    Expected<qint64> sshMs(const QString& command, bool pty = false) const;

    /// Wall time in ms of `sftp -b BATCH root@sandbox` with the batch `commands` (one sftp
    /// command a line, e.g. "put FILE /root/x\n"), its stdout discarded; the handshake
    /// included. Errors: as sshMs(); the batch file cannot be written.
    Expected<qint64> sftpMs(const QByteArray& commands) const;

private:
    PlainSshClient(const QString& dir, const QStringList& options);
    static Expected<qint64> runMs(const QString& program, const QStringList& arguments);

    QString m_dir;
    QStringList m_options;
};

} // namespace sbw::test
