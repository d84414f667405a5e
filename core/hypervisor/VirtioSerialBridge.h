#pragma once

#include "base/Expected.h"

#include <QByteArray>

#include <memory>

typedef struct _virDomain* virDomainPtr;
typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// Bridges a domain's virtio-serial channel, opened with virDomainOpenChannel() as a libvirt
/// stream, to one end of a local socketpair, so that libraries that want a file descriptor
/// (libssh) can talk to the guest. Going through the libvirt stream rather than the channel's
/// socket path makes it work on qemu:///session, qemu:///system and remote connections alike.
///
/// Bytes are pumped both ways by callbacks on the libvirt event-loop thread (nonblocking stream,
/// virEventAddHandle on the socket); at most 64 KiB is in flight per direction. When the guest
/// side ends, the socket sees EOF; when the socket's peer closes, the stream is finished.
///
/// A virtio-serial port is one byte stream with no connection boundaries, and a guest under
/// TCG notices a hang-up late: the server of the previous connection is often still reading
/// when the next connection opens, and would take that connection's first bytes (measured with
/// sshd: every reconnect right after a close lost its first handshake, and the second as well,
/// because the fresh sshd then read the client's key exchange as its banner). With a `greeting`
/// (what a fresh server sends first, e.g. "SSH-2.0-") the bridge sends nothing to the guest
/// until the greeting has arrived; and when other bytes come first, they are the previous
/// server's, and the bridge closes at once (the socket sees EOF), so that server sees the
/// hang-up and ends, and the caller's next attempt meets a fresh one.
///
/// A lost libvirt connection gives its streams no event; the bridge asks every second whether
/// its connection is alive and closes when it is not (the socket sees EOF), and isOpen() asks
/// at once.
class VirtioSerialBridge
{
public:
    /// Opens channel `portName` of the running domain. The returned bridge owns its end of the
    /// socketpair; takePeerFd() hands the other end to the caller. `greeting`: see the class
    /// comment; empty for none. Errors: no such channel, domain not running, connection lost.
    static Expected<std::unique_ptr<VirtioSerialBridge>> open(virConnectPtr conn, virDomainPtr domain,
                                                         const char* portName,
                                                         const QByteArray& greeting = {});
    ~VirtioSerialBridge();

    VirtioSerialBridge(const VirtioSerialBridge&) = delete;
    VirtioSerialBridge& operator=(const VirtioSerialBridge&) = delete;

    /// The caller's end of the socketpair; the caller must close it. Call once.
    int takePeerFd();

    /// False once the bridge has closed (the guest or the socket's user ended, or the libvirt
    /// connection it was opened on is gone: then it closes now). A bridge of a connection that
    /// was lost and opened again is closed: its stream went with the old connection.
    bool isOpen() const;

    struct State;

private:
    explicit VirtioSerialBridge(std::shared_ptr<State> state, int peerFd);
    std::shared_ptr<State> m_state;
    int m_peerFd;
};

} // namespace sbw
