#include "hypervisor/VirtioSerialBridge.h"

#include "base/Logging.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "hypervisor/VirtError.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <QByteArray>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <sys/socket.h>
#include <unistd.h>

namespace sbw {

struct VirtioSerialBridge::State
{
    std::mutex mutex;
    virConnectPtr conn = nullptr; ///< the stream's (which holds a reference to it) until close()
    virStreamPtr stream = nullptr;
    int fd = -1;            ///< our end of the socketpair
    int fdWatch = -1;       ///< virEventAddHandle id
    int liveTimer = -1;     ///< virEventAddTimeout id of the connection's liveness check
    bool closed = false;
    bool guestEof = false;  ///< the stream reached its end; our socket end is shut for writing
    QByteArray toSocket;    ///< read from the guest, not yet written to the socket
    QByteArray toGuest;     ///< read from the socket, not yet sent to the guest
    qint64 sentToGuest = 0;  ///< bytes, for the debug log line at close
    qint64 receivedFromGuest = 0;
    QByteArray greeting;     ///< the part of a fresh server's greeting still to arrive

    bool awaitingGreeting() const { return !greeting.isEmpty(); }
    void checkGreeting();
    void updateInterest();
    void onStream(int events);
    void onSocket(int events);
    /// Closes the bridge when its connection is gone; the caller holds the mutex.
    void checkConnection();
    void close();
};

namespace {
constexpr int kChunk = 64 * 1024;
/// How often a bridge asks whether its connection is still alive (see checkConnection()).
constexpr int kLivenessCheckMs = 1000;

// The callbacks get the state as a plain pointer: ~VirtioSerialBridge keeps it alive until they
// cannot run any more (LibvirtEventLoop::releaseAfterCallbacks()).
VirtioSerialBridge::State& stateOf(void* opaque)
{
    return *static_cast<VirtioSerialBridge::State*>(opaque);
}
} // namespace

void VirtioSerialBridge::State::updateInterest()
{
    int streamEvents = VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP;
    if (toSocket.isEmpty() && !guestEof)
        streamEvents |= VIR_STREAM_EVENT_READABLE;
    if (!toGuest.isEmpty())
        streamEvents |= VIR_STREAM_EVENT_WRITABLE;
    virStreamEventUpdateCallback(stream, streamEvents);

    int socketEvents = VIR_EVENT_HANDLE_ERROR | VIR_EVENT_HANDLE_HANGUP;
    if (toGuest.isEmpty() && !awaitingGreeting())
        socketEvents |= VIR_EVENT_HANDLE_READABLE;
    if (!toSocket.isEmpty())
        socketEvents |= VIR_EVENT_HANDLE_WRITABLE;
    virEventUpdateHandle(fdWatch, socketEvents);
}

void VirtioSerialBridge::State::close()
{
    if (closed)
        return;
    closed = true;
    qCDebug(lcChannel) << "channel bridge closed:" << sentToGuest << "bytes to the guest,"
                       << receivedFromGuest << "bytes from it";
    virStreamEventRemoveCallback(stream);
    virEventRemoveHandle(fdWatch);
    virEventRemoveTimeout(liveTimer);
    if (virStreamAbort(stream) < 0)
        virResetLastError(); // the stream may already be finished or broken
    virStreamFree(stream);
    stream = nullptr;
    conn = nullptr;
    ::close(fd);
    fd = -1;
}

// libvirt gives a stream no event when its connection is lost (the remote host or its daemon
// went away, a keepalive timed out): without this the socket's user (a terminal's SSH session)
// would wait for bytes that cannot come, and would learn only at its next write that the
// session is dead. Closing makes the socket see EOF, so the SSH session above ends at once and
// says that the connection broke.
void VirtioSerialBridge::State::checkConnection()
{
    if (closed || virConnectIsAlive(conn) != 0) // -1: a driver that cannot tell
        return;
    qCInfo(lcChannel) << "channel bridge: the libvirt connection is gone; closing";
    close();
}

// Called with the guest's next bytes in `toSocket` while the greeting is awaited: they must
// continue it. Anything else was written by the server of an earlier connection, which would
// also read this connection's first bytes: close, so that it sees the hang-up and ends.
void VirtioSerialBridge::State::checkGreeting()
{
    const qsizetype n = std::min(toSocket.size(), greeting.size());
    if (toSocket.left(n) != greeting.left(n)) {
        qCInfo(lcChannel) << "channel bridge: the server of an earlier connection answered;"
                          << "closing so that it ends";
        toSocket.clear();
        return close();
    }
    // The rest of the greeting comes in a later read; once all of it has arrived the fresh
    // server has spoken, and the client's bytes may go to it.
    greeting.remove(0, n);
}

void VirtioSerialBridge::State::onStream(int events)
{
    std::lock_guard lock(mutex);
    if (closed)
        return;
    if (events & VIR_STREAM_EVENT_WRITABLE && !toGuest.isEmpty()) {
        const int sent = virStreamSend(stream, toGuest.constData(), size_t(toGuest.size()));
        if (sent > 0) {
            toGuest.remove(0, sent);
            sentToGuest += sent;
        } else if (sent == -1) {
            qCDebug(lcChannel) << "channel send failed:" << lastVirtErrorMessage();
            return close();
        }
    }
    if (events & VIR_STREAM_EVENT_READABLE && toSocket.isEmpty() && !guestEof) {
        toSocket.resize(kChunk);
        const int got = virStreamRecv(stream, toSocket.data(), size_t(kChunk));
        toSocket.resize(got > 0 ? got : 0);
        receivedFromGuest += toSocket.size();
        if (got == 0) {
            guestEof = true;
            ::shutdown(fd, SHUT_WR);
        } else if (got == -1) {
            qCDebug(lcChannel) << "channel receive failed:" << lastVirtErrorMessage();
            return close();
        }
        if (awaitingGreeting() && !toSocket.isEmpty()) {
            checkGreeting();
            if (closed)
                return;
        }
    }
    if (!toSocket.isEmpty()) {
        const ssize_t written = ::write(fd, toSocket.constData(), size_t(toSocket.size()));
        if (written > 0)
            toSocket.remove(0, int(written));
        else if (written < 0 && errno != EAGAIN)
            return close();
    }
    if ((events & (VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP)) && toSocket.isEmpty()
        && !(events & VIR_STREAM_EVENT_READABLE))
        return close();
    updateInterest();
}

void VirtioSerialBridge::State::onSocket(int events)
{
    std::lock_guard lock(mutex);
    if (closed)
        return;
    if (events & VIR_EVENT_HANDLE_WRITABLE && !toSocket.isEmpty()) {
        const ssize_t written = ::write(fd, toSocket.constData(), size_t(toSocket.size()));
        if (written > 0)
            toSocket.remove(0, int(written));
        else if (written < 0 && errno != EAGAIN)
            return close();
    }
    if (events & VIR_EVENT_HANDLE_READABLE && toGuest.isEmpty()) {
        toGuest.resize(kChunk);
        const ssize_t got = ::read(fd, toGuest.data(), size_t(kChunk));
        toGuest.resize(got > 0 ? int(got) : 0);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
            // The socket's user (libssh) is done: end the stream so the guest sees a hang-up.
            if (virStreamFinish(stream) < 0)
                virResetLastError();
            return close();
        }
    }
    // Never send an empty buffer: a zero-length stream packet means end of stream.
    if (!toGuest.isEmpty()) {
        const int sent = virStreamSend(stream, toGuest.constData(), size_t(toGuest.size()));
        if (sent > 0) {
            toGuest.remove(0, sent);
            sentToGuest += sent;
        } else if (sent == -1) {
            return close();
        }
    }
    if ((events & (VIR_EVENT_HANDLE_ERROR | VIR_EVENT_HANDLE_HANGUP)) && toGuest.isEmpty()
        && !(events & VIR_EVENT_HANDLE_READABLE))
        return close();
    updateInterest();
}

Expected<std::unique_ptr<VirtioSerialBridge>> VirtioSerialBridge::open(virConnectPtr conn,
                                                             virDomainPtr domain,
                                                             const char* portName,
                                                             const QByteArray& greeting)
{
    LibvirtEventLoop::ensureRunning();
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
        return makeError(QStringLiteral("socketpair failed: %1").arg(QString::fromLocal8Bit(strerror(errno))));
    ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);

    auto state = std::make_shared<State>();
    state->fd = fds[0];
    state->greeting = greeting;
    state->stream = virStreamNew(conn, VIR_STREAM_NONBLOCK);
    if (!state->stream || virDomainOpenChannel(domain, portName, state->stream, 0) < 0) {
        const Error error = virtError(QStringLiteral("cannot open guest channel %1").arg(QLatin1String(portName)));
        if (state->stream)
            virStreamFree(state->stream);
        ::close(fds[0]);
        ::close(fds[1]);
        return error;
    }

    std::lock_guard lock(state->mutex);
    const auto streamCallback = [](virStreamPtr, int events, void* opaque) {
        stateOf(opaque).onStream(events);
    };
    const auto socketCallback = [](int, int, int events, void* opaque) {
        stateOf(opaque).onSocket(events);
    };
    virStreamEventAddCallback(state->stream, VIR_STREAM_EVENT_READABLE, streamCallback,
                              state.get(), nullptr);
    state->fdWatch = virEventAddHandle(state->fd, VIR_EVENT_HANDLE_READABLE, socketCallback,
                                       state.get(), nullptr);
    state->conn = conn;
    state->liveTimer = virEventAddTimeout(
        kLivenessCheckMs,
        [](int, void* opaque) {
            VirtioSerialBridge::State& state = stateOf(opaque);
            std::lock_guard lock(state.mutex);
            state.checkConnection();
        },
        state.get(), nullptr);
    return std::unique_ptr<VirtioSerialBridge>(new VirtioSerialBridge(state, fds[1]));
}

VirtioSerialBridge::VirtioSerialBridge(std::shared_ptr<State> state, int peerFd)
    : m_state(std::move(state)), m_peerFd(peerFd)
{
}

VirtioSerialBridge::~VirtioSerialBridge()
{
    {
        std::lock_guard lock(m_state->mutex);
        m_state->close();
    }
    LibvirtEventLoop::releaseAfterCallbacks(std::move(m_state));
    if (m_peerFd >= 0)
        ::close(m_peerFd);
}

bool VirtioSerialBridge::isOpen() const
{
    std::lock_guard lock(m_state->mutex);
    m_state->checkConnection();
    return !m_state->closed;
}

int VirtioSerialBridge::takePeerFd()
{
    return std::exchange(m_peerFd, -1);
}

} // namespace sbw
