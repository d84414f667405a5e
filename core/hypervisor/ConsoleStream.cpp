#include "hypervisor/ConsoleStream.h"

#include "base/Logging.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "hypervisor/VirtError.h"

#include <QMetaObject>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <mutex>

namespace sbw {

struct ConsoleStream::State
{
    std::mutex mutex;
    ConsoleStream* owner = nullptr; ///< cleared (under the mutex) when the owner detaches
    virStreamPtr stream = nullptr;
    bool closed = false;
    QByteArray toGuest; ///< written by the user, not yet accepted by the stream

    void updateInterest();
    void onStream(int events);
    void post(QByteArray bytes);
    void end(const QString& reason);
    void close();
};

namespace {
constexpr int kChunk = 64 * 1024;
} // namespace

void ConsoleStream::State::updateInterest()
{
    int events = VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP;
    if (!toGuest.isEmpty())
        events |= VIR_STREAM_EVENT_WRITABLE;
    virStreamEventUpdateCallback(stream, events);
}

void ConsoleStream::State::close()
{
    if (closed)
        return;
    closed = true;
    virStreamEventRemoveCallback(stream);
    if (virStreamAbort(stream) < 0)
        virResetLastError(); // already finished or broken
    virStreamFree(stream);
    stream = nullptr;
    toGuest.clear();
}

// Both run with the mutex held, so `owner` cannot be destroyed meanwhile; Qt drops the queued
// call if it is destroyed before delivery. The state check skips calls from a stream the
// owner has replaced since.
void ConsoleStream::State::post(QByteArray bytes)
{
    if (!owner)
        return;
    ConsoleStream* target = owner;
    QMetaObject::invokeMethod(
        target,
        [target, state = this, bytes = std::move(bytes)] {
            if (target->m_state.get() == state)
                Q_EMIT target->received(bytes);
        },
        Qt::QueuedConnection);
}

void ConsoleStream::State::end(const QString& reason)
{
    close();
    if (!owner)
        return;
    ConsoleStream* target = owner;
    QMetaObject::invokeMethod(
        target,
        [target, state = this, reason] {
            if (target->m_state.get() == state)
                Q_EMIT target->ended(reason);
        },
        Qt::QueuedConnection);
}

void ConsoleStream::State::onStream(int events)
{
    std::lock_guard lock(mutex);
    if (closed)
        return;
    if (events & VIR_STREAM_EVENT_WRITABLE && !toGuest.isEmpty()) {
        const int sent = virStreamSend(stream, toGuest.constData(), size_t(toGuest.size()));
        if (sent > 0)
            toGuest.remove(0, sent);
        else if (sent == -1)
            return end(QStringLiteral("the console stream failed: %1").arg(lastVirtErrorMessage()));
    }
    if (events & (VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR)) {
        // Drain what has arrived: after a hang-up, the last bytes are still to be read.
        for (;;) {
            QByteArray bytes(kChunk, Qt::Uninitialized);
            const int got = virStreamRecv(stream, bytes.data(), size_t(kChunk));
            if (got > 0) {
                bytes.truncate(got);
                post(std::move(bytes));
                continue;
            }
            if (got == -2)
                break; // nothing more for now
            if (got == 0) {
                if (virStreamFinish(stream) < 0)
                    virResetLastError();
                return end(QStringLiteral("the console stream ended"));
            }
            return end(QStringLiteral("the console stream failed: %1").arg(lastVirtErrorMessage()));
        }
    }
    updateInterest();
}

ConsoleStream::ConsoleStream(QObject* parent) : QObject(parent) {}

ConsoleStream::~ConsoleStream()
{
    close();
}

Expected<void> ConsoleStream::open(virConnectPtr conn, const QString& domainName)
{
    close();
    LibvirtEventLoop::ensureRunning();
    const QString what = QStringLiteral("cannot open the serial console of %1").arg(domainName);
    if (!conn)
        return makeError(what + QStringLiteral(": not connected to libvirt"));
    virDomainPtr domain = virDomainLookupByName(conn, domainName.toUtf8().constData());
    if (!domain)
        return virtError(what);
    virStreamPtr stream = virStreamNew(conn, VIR_STREAM_NONBLOCK);
    if (!stream || virDomainOpenConsole(domain, nullptr, stream, VIR_DOMAIN_CONSOLE_FORCE) < 0) {
        const Error error = virtError(what);
        if (stream)
            virStreamFree(stream);
        virDomainFree(domain);
        return error;
    }
    virDomainFree(domain);

    auto state = std::make_shared<State>();
    std::lock_guard lock(state->mutex);
    state->owner = this;
    state->stream = stream;
    const auto callback = [](virStreamPtr, int events, void* opaque) {
        // A plain pointer: close() keeps the state alive until this cannot run any more.
        static_cast<State*>(opaque)->onStream(events);
    };
    if (virStreamEventAddCallback(
            stream, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP,
            callback, state.get(), nullptr) < 0) {
        const Error error = virtError(what);
        virStreamAbort(stream);
        virStreamFree(stream);
        state->stream = nullptr;
        state->closed = true;
        return error;
    }
    m_state = state;
    qCDebug(lcVirt) << "console attached to" << domainName;
    return {};
}

bool ConsoleStream::isOpen() const
{
    if (!m_state)
        return false;
    std::lock_guard lock(m_state->mutex);
    return !m_state->closed;
}

void ConsoleStream::write(QByteArrayView bytes)
{
    if (!m_state || bytes.isEmpty())
        return;
    std::lock_guard lock(m_state->mutex);
    if (m_state->closed)
        return;
    m_state->toGuest.append(bytes);
    m_state->updateInterest();
}

void ConsoleStream::close()
{
    if (!m_state)
        return;
    {
        std::lock_guard lock(m_state->mutex);
        m_state->owner = nullptr;
        m_state->close();
    }
    LibvirtEventLoop::releaseAfterCallbacks(std::move(m_state));
}

} // namespace sbw
