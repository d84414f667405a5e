#pragma once

#include "base/Expected.h"

#include <QProcess>
#include <QString>
#include <QTemporaryDir>

namespace sbw::test {

/// OpenSSH's sshd on 127.0.0.1, run by the test as root, so that this machine's libvirt daemon
/// can be reached as a remote host (qemu+ssh://). Everything it needs is made in a temporary
/// folder of its own: an ed25519 host key, a client key authorised for root, sshd_config
/// (this folder's keys only, public keys only) and a known_hosts file holding the host key. The
/// ssh client libvirt starts is a wrapper script in that folder (the URI's `command=`), which
/// checks the host key against that file and reads nothing of ~/.ssh.
///
/// Needs the package openssh-server (/usr/sbin/sshd) and root's account not locked.
class LoopbackSshd
{
public:
    LoopbackSshd();
    /// kill()
    ~LoopbackSshd();

    /// Starts sshd (the first call makes the keys and files, on a free port; later calls reuse
    /// them, on the same port) and waits until the port accepts connections. Errors: a file
    /// or key cannot be made, sshd did not come up within 20 s (with its log).
    Expected<void> start();

    /// Ends sshd as a host that went away would: the listener and every process of its
    /// connections (each one's sshd calls setsid, so they are found as the listener's
    /// descendants in /proc), all with SIGKILL, so the clients see their connections drop.
    void kill();

    /// qemu+ssh://root@127.0.0.1:PORT/system with this folder's client key (`keyfile=`) and
    /// ssh wrapper (`command=`).
    QString uri() const;

private:
    Expected<void> prepare();
    QString path(const QString& name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    quint16 m_port = 0;
    QProcess m_sshd;
};

} // namespace sbw::test
