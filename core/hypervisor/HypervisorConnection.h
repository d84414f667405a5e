#pragma once

#include "base/Expected.h"

#include <QFuture>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

class QTimer;
typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// The hardware acceleration a connection's QEMU uses for new domains.
enum class Accelerator
{
    Kvm, ///< /dev/kvm usable by the daemon: domain type 'kvm'
    Tcg  ///< software emulation (QEMU TCG): domain type 'qemu', several times slower
};

/// KVM when the capabilities XML (virConnectGetCapabilities) offers domain type 'kvm' and the
/// host CPU has VT-x or AMD-V (feature vmx or svm); TCG otherwise.
Accelerator acceleratorFromCapabilities(const QString& capabilitiesXml);

/// Where a connection is, as the window shows it (virt-manager's connection states).
enum class ConnectionState
{
    Closed,       ///< never opened, or closed by this process
    Connecting,   ///< the first open() is under way
    Active,       ///< open, its event callbacks registered
    Lost,         ///< the open failed or the daemon went away (stateReason() says why)
    Reconnecting  ///< lost; the next attempt is in retryDelaySeconds()
};

/// One libvirt connection, owned by core. open() registers the process-wide event loop
/// (LibvirtEventLoop), sets keepalive (5 s interval, 3 missed replies), a close callback and
/// domain LIFECYCLE and AGENT_LIFECYCLE callbacks. Callbacks run on the event-loop thread; they
/// only copy plain values and post them to this object's thread, where the signals are emitted.
///
/// Thread-safety: open(), handle() and close() may be called from any thread; libvirt calls on
/// handle() are thread-safe. Blocking calls belong on worker threads, never the GUI thread.
class HypervisorConnection : public QObject
{
    Q_OBJECT

public:
    explicit HypervisorConnection(QString uri, QObject* parent = nullptr);
    ~HypervisorConnection() override;

    QString uri() const { return m_uri; }

    /// Opens the connection if it is not open. Blocks for as long as libvirt needs to answer.
    /// Errors: daemon not running or unreachable, access denied ("cannot connect to libvirt at
    /// <uri>: <libvirt's reason>").
    Expected<void> ensureOpen();

    /// The open connection, or nullptr before ensureOpen() succeeded or after it was lost.
    virConnectPtr handle() const;

    /// acceleratorFromCapabilities() of the daemon, downgraded to TCG by markKvmUnusable().
    /// Only meaningful after ensureOpen() succeeded.
    Accelerator accelerator() const { return m_accelerator.load(); }

    /// Records that QEMU failed to use KVM although the daemon offers it (`reason`: libvirt's
    /// message); accelerator() is TCG from then on.
    void markKvmUnusable(const QString& reason);

    /// "KVM" or "TCG (software emulation, slow)" for status lines.
    static QString describe(Accelerator accelerator);

    void close();

    /// Opens the connection on a thread-pool thread (a remote host can take as long as SSH's
    /// timeout to answer), moving from Connecting to Active, or to Lost and, with
    /// auto-reconnect, on to Reconnecting. Call on this object's thread.
    void openInBackground();

    /// The state the last transition left; read on this object's thread.
    ConnectionState state() const { return m_state; }
    /// Why the connection is Lost or Reconnecting: libvirt's message or the close reason.
    QString stateReason() const { return m_stateReason; }
    /// Reconnecting: seconds from the last attempt to the next.
    int retryDelaySeconds() const { return m_retryDelaySeconds; }
    /// "connecting", "active", "lost", "reconnecting in 4 s".
    static QString describe(ConnectionState state, int retryDelaySeconds);

    /// When on, a lost connection (close callback: daemon crash or restart, keepalive timeout)
    /// is dropped and reopened with backoff (1, 2, 4, … 30 s between attempts), re-registering
    /// every event callback; reconnected() says when it is back. Off by default: ephemeral runs
    /// fail instead (their AUTODESTROY domain went with the connection). Call on this object's
    /// thread.
    void setAutoReconnect(bool on) { m_autoReconnect = on; }

Q_SIGNALS:
    /// virConnectDomainEventLifecycle: `event` is a virDomainEventType, `detail` its detail.
    void domainLifecycle(const QString& uuid, int event, int detail);
    /// The guest agent (qemu-ga) in domain `uuid` connected (true) or disconnected (false).
    void agentLifecycle(const QString& uuid, bool connected);
    /// The daemon closed the connection (crash, restart, keepalive timeout). `reason` is text.
    void disconnected(const QString& reason);
    /// Auto-reconnect: the next attempt to reopen the connection is in `delaySeconds`.
    void reconnectScheduled(int delaySeconds);
    /// Auto-reconnect: the connection is open again, with its callbacks registered. Every state
    /// read before is stale.
    void reconnected();
    /// state() changed (each transition, also from Reconnecting to Reconnecting with a new
    /// delay).
    void stateChanged(sbw::ConnectionState state);

private:
    void onLost(const QString& reason);
    /// An attempt to open, on a thread-pool thread; `done` gets its outcome on this object's
    /// thread.
    void openOffThread(std::function<void(const Expected<void>&)> done);
    void tryReconnect();
    void scheduleReconnect();
    void setState(ConnectionState state, const QString& reason = {});

    /// What libvirt's callbacks reach this object through (their opaque data): libvirt may run
    /// a callback on its event loop's thread after it was deregistered, so the callback finds
    /// the connection through this, cleared before the connection goes, never through a
    /// pointer that may dangle. Each registration holds a reference that libvirt's free
    /// callback drops.
    struct CallbackTarget
    {
        std::mutex mutex;
        HypervisorConnection* connection = nullptr;

        /// Runs `post(connection)` with the lock held (so the connection is not destroyed
        /// meanwhile) when the connection is still there; `opaque` is a registration's data.
        static void with(void* opaque, const std::function<void(HypervisorConnection*)>& post);
    };

    void registerCallbacks();
    void unregisterCallbacks();
    static void onClose(virConnectPtr, int reason, void* opaque);

    const QString m_uri;
    mutable std::mutex m_mutex;
    virConnectPtr m_conn = nullptr;
    std::atomic<Accelerator> m_accelerator{Accelerator::Tcg};
    std::shared_ptr<CallbackTarget> m_callbackTarget; ///< while callbacks are registered
    void* m_closeRef = nullptr; ///< the close callback's data (a reference to m_callbackTarget)
    int m_lifecycleCallback = -1;
    int m_agentCallback = -1;
    bool m_autoReconnect = false;
    int m_retryDelaySeconds = 1;
    QTimer* m_retryTimer = nullptr;
    ConnectionState m_state = ConnectionState::Closed;
    QString m_stateReason;
    QFuture<Expected<void>> m_opening; ///< openOffThread()'s attempt; the destructor waits for it
};

} // namespace sbw
