#pragma once

#include "Expected.h"

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
class ChannelBridge
{
public:
    /// Opens channel `portName` of the running domain. The returned bridge owns its end of the
    /// socketpair; takePeerFd() hands the other end to the caller. Errors: no such channel,
    /// domain not running, connection lost.
    static Expected<std::unique_ptr<ChannelBridge>> open(virConnectPtr conn, virDomainPtr domain,
                                                         const char* portName);
    ~ChannelBridge();

    ChannelBridge(const ChannelBridge&) = delete;
    ChannelBridge& operator=(const ChannelBridge&) = delete;

    /// The caller's end of the socketpair; the caller must close it. Call once.
    int takePeerFd();

    struct State;

private:
    explicit ChannelBridge(std::shared_ptr<State> state, int peerFd);
    std::shared_ptr<State> m_state;
    int m_peerFd;
};

} // namespace sbw
