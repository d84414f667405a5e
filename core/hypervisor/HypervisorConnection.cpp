#include "hypervisor/HypervisorConnection.h"

#include "base/Async.h"
#include "base/Logging.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "hypervisor/VirtError.h"

#include <QTimer>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <algorithm>

namespace sbw {
namespace {

QString uuidOf(virDomainPtr domain)
{
    char uuid[VIR_UUID_STRING_BUFLEN] = {};
    virDomainGetUUIDString(domain, uuid);
    return QString::fromLatin1(uuid);
}

using CallbackTargetRef = std::shared_ptr<void>;

/// A registration's opaque data: a reference to the connection's callback target.
void* newTargetRef(const CallbackTargetRef& target)
{
    return new CallbackTargetRef(target);
}

void freeTargetRef(void* opaque)
{
    delete static_cast<CallbackTargetRef*>(opaque);
}

QString closeReasonText(int reason)
{
    switch (reason) {
    case VIR_CONNECT_CLOSE_REASON_ERROR:
        return QStringLiteral("connection error");
    case VIR_CONNECT_CLOSE_REASON_EOF:
        return QStringLiteral("the libvirt daemon closed the connection");
    case VIR_CONNECT_CLOSE_REASON_KEEPALIVE:
        return QStringLiteral("the libvirt daemon stopped answering keepalives");
    default:
        return QStringLiteral("connection closed by the client");
    }
}

} // namespace

Accelerator acceleratorFromCapabilities(const QString& capabilitiesXml)
{
    // libvirt offers domain type 'kvm' whenever /dev/kvm opens. That is not enough: some
    // hosts (e.g. PVM-based nested KVM in microVM sandboxes) expose /dev/kvm without hardware
    // virtualisation, and ordinary guest kernels hang there. Require VT-x or AMD-V on the host
    // CPU too.
    const bool offersKvm = capabilitiesXml.contains(QLatin1String("<domain type='kvm'"));
    const bool hardwareVirt = capabilitiesXml.contains(QLatin1String("<feature name='vmx'/>"))
                              || capabilitiesXml.contains(QLatin1String("<feature name='svm'/>"));
    return offersKvm && hardwareVirt ? Accelerator::Kvm : Accelerator::Tcg;
}

HypervisorConnection::HypervisorConnection(QString uri, QObject* parent)
    : QObject(parent), m_uri(std::move(uri))
{
}

HypervisorConnection::~HypervisorConnection()
{
    m_opening.waitForFinished(); // the attempt uses this object
    close();
}

Expected<void> HypervisorConnection::ensureOpen()
{
    std::lock_guard lock(m_mutex);
    if (m_conn)
        return {};
    LibvirtEventLoop::ensureRunning();
    const QByteArray uri = m_uri.toUtf8();
    virConnectPtr conn = virConnectOpen(uri.constData());
    if (!conn) {
        const virErrorPtr error = virGetLastError();
        // A remote host's system error is its transport's (SSH), not a missing local daemon.
        const bool unreachable = error && error->code == VIR_ERR_SYSTEM_ERROR && isLocalUri(m_uri);
        return makeError(QStringLiteral("cannot connect to libvirt at %1: %2%3")
                             .arg(m_uri, lastVirtErrorMessage(),
                                  unreachable ? QStringLiteral(" (is libvirtd running?)") : QString()));
    }
    m_conn = conn;
    if (virConnectSetKeepAlive(m_conn, 5, 3) < 0)
        qCWarning(lcVirt) << "keepalive not supported by" << m_uri << lastVirtErrorMessage();

    char* caps = virConnectGetCapabilities(m_conn);
    const QString capabilities = caps ? QString::fromUtf8(caps) : QString();
    free(caps);
    m_accelerator = acceleratorFromCapabilities(capabilities);
    registerCallbacks();
    qCInfo(lcVirt) << "connected to" << m_uri << "accelerator:" << describe(m_accelerator.load());
    // Opened by a caller of its own (the CLI, a worker) rather than by openInBackground().
    QMetaObject::invokeMethod(this, [this] {
        if (m_state == ConnectionState::Closed)
            setState(ConnectionState::Active);
    }, Qt::QueuedConnection);
    return {};
}

virConnectPtr HypervisorConnection::handle() const
{
    std::lock_guard lock(m_mutex);
    return m_conn;
}

void HypervisorConnection::markKvmUnusable(const QString& reason)
{
    if (m_accelerator.exchange(Accelerator::Tcg) == Accelerator::Kvm)
        qCWarning(lcVirt) << "KVM is offered but unusable, using TCG instead:" << reason;
}

QString HypervisorConnection::describe(Accelerator accelerator)
{
    return accelerator == Accelerator::Kvm ? QStringLiteral("KVM")
                                           : QStringLiteral("TCG (software emulation, slow)");
}

void HypervisorConnection::CallbackTarget::with(void* opaque,
                                                const std::function<void(HypervisorConnection*)>& post)
{
    auto* target = static_cast<CallbackTarget*>(static_cast<CallbackTargetRef*>(opaque)->get());
    std::lock_guard lock(target->mutex);
    if (target->connection)
        post(target->connection);
}

void HypervisorConnection::registerCallbacks()
{
    m_callbackTarget = std::make_shared<CallbackTarget>();
    m_callbackTarget->connection = this;
    const auto onLifecycle = [](virConnectPtr, virDomainPtr domain, int event, int detail, void* opaque) {
        const QString uuid = uuidOf(domain);
        CallbackTarget::with(opaque, [&](HypervisorConnection* self) {
            QMetaObject::invokeMethod(
                self, [self, uuid, event, detail] { Q_EMIT self->domainLifecycle(uuid, event, detail); },
                Qt::QueuedConnection);
        });
        return 0;
    };
    const auto onAgentLifecycle = [](virConnectPtr, virDomainPtr domain, int state, int, void* opaque) {
        const QString uuid = uuidOf(domain);
        const bool connected = state == VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_CONNECTED;
        CallbackTarget::with(opaque, [&](HypervisorConnection* self) {
            QMetaObject::invokeMethod(
                self, [self, uuid, connected] { Q_EMIT self->agentLifecycle(uuid, connected); },
                Qt::QueuedConnection);
        });
    };
    // libvirt frees an event registration's data once it is deregistered, and nothing when the
    // registration failed: then it is freed here.
    const auto registered = [](int result, void* ref) {
        if (result < 0)
            freeTargetRef(ref);
        return result;
    };
    // The close callback's data is this object's: a driver without close callbacks (the test
    // driver) takes the registration without keeping it and would never free it.
    m_closeRef = newTargetRef(m_callbackTarget);
    virConnectRegisterCloseCallback(m_conn, &HypervisorConnection::onClose, m_closeRef, nullptr);
    void* lifecycleRef = newTargetRef(m_callbackTarget);
    m_lifecycleCallback = registered(
        virConnectDomainEventRegisterAny(
            m_conn, nullptr, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
            VIR_DOMAIN_EVENT_CALLBACK(static_cast<virConnectDomainEventCallback>(onLifecycle)), lifecycleRef,
            freeTargetRef),
        lifecycleRef);
    void* agentRef = newTargetRef(m_callbackTarget);
    m_agentCallback = registered(
        virConnectDomainEventRegisterAny(
            m_conn, nullptr, VIR_DOMAIN_EVENT_ID_AGENT_LIFECYCLE,
            VIR_DOMAIN_EVENT_CALLBACK(static_cast<virConnectDomainEventAgentLifecycleCallback>(onAgentLifecycle)),
            agentRef, freeTargetRef),
        agentRef);
    if (m_lifecycleCallback < 0 || m_agentCallback < 0)
        qCWarning(lcVirt) << "cannot register domain event callbacks:" << lastVirtErrorMessage();
}

void HypervisorConnection::unregisterCallbacks()
{
    if (m_lifecycleCallback >= 0)
        virConnectDomainEventDeregisterAny(m_conn, m_lifecycleCallback);
    if (m_agentCallback >= 0)
        virConnectDomainEventDeregisterAny(m_conn, m_agentCallback);
    // Returns once a close callback running now is done (libvirt holds its lock while it runs).
    virConnectUnregisterCloseCallback(m_conn, &HypervisorConnection::onClose);
    freeTargetRef(m_closeRef);
    m_closeRef = nullptr;
    m_lifecycleCallback = m_agentCallback = -1;
    if (m_callbackTarget) {
        std::lock_guard lock(m_callbackTarget->mutex);
        m_callbackTarget->connection = nullptr;
    }
    m_callbackTarget.reset();
}

void HypervisorConnection::onClose(virConnectPtr, int reason, void* opaque)
{
    CallbackTarget::with(opaque, [&](HypervisorConnection* self) {
        // Over SSH an EOF is as likely the transport's end as the daemon's: name the host.
        const QString text = isLocalUri(self->uri())
                                 ? closeReasonText(reason)
                                 : QStringLiteral("the connection to %1 ended (%2)")
                                       .arg(hostDisplayName(self->uri()), closeReasonText(reason));
        qCWarning(lcVirt) << "libvirt connection closed:" << text;
        QMetaObject::invokeMethod(self, [self, text] { self->onLost(text); }, Qt::QueuedConnection);
    });
}

void HypervisorConnection::onLost(const QString& reason)
{
    setState(ConnectionState::Lost, reason);
    Q_EMIT disconnected(reason);
    if (!m_autoReconnect)
        return;
    close(); // the dead handle is useless; ensureOpen() makes a new one
    m_retryDelaySeconds = 1;
    scheduleReconnect();
}

void HypervisorConnection::openInBackground()
{
    if (m_state == ConnectionState::Connecting || m_state == ConnectionState::Active)
        return;
    setState(ConnectionState::Connecting);
    openOffThread([this](const Expected<void>& opened) {
        if (opened) {
            setState(ConnectionState::Active);
            return;
        }
        setState(ConnectionState::Lost, opened.error().message);
        if (!m_autoReconnect)
            return;
        m_retryDelaySeconds = 1;
        scheduleReconnect();
    });
}

void HypervisorConnection::openOffThread(std::function<void(const Expected<void>&)> done)
{
    // The work touches this object; the destructor waits for m_opening, so it cannot dangle.
    m_opening = runAsync([this] { return ensureOpen(); });
    onFinished(m_opening, this, std::move(done));
}

void HypervisorConnection::scheduleReconnect()
{
    if (!m_retryTimer) {
        m_retryTimer = new QTimer(this);
        m_retryTimer->setSingleShot(true);
        connect(m_retryTimer, &QTimer::timeout, this, &HypervisorConnection::tryReconnect);
    }
    m_retryTimer->start(m_retryDelaySeconds * 1000);
    setState(ConnectionState::Reconnecting, m_stateReason);
    Q_EMIT reconnectScheduled(m_retryDelaySeconds);
}

void HypervisorConnection::tryReconnect()
{
    openOffThread([this](const Expected<void>& opened) {
        if (opened) {
            qCInfo(lcVirt) << "reconnected to" << m_uri;
            m_retryDelaySeconds = 1;
            setState(ConnectionState::Active);
            Q_EMIT reconnected();
            return;
        }
        qCInfo(lcVirt) << "reconnect failed:" << opened.error().message;
        m_stateReason = opened.error().message;
        m_retryDelaySeconds = std::min(m_retryDelaySeconds * 2, 30);
        scheduleReconnect();
    });
}

void HypervisorConnection::setState(ConnectionState state, const QString& reason)
{
    m_state = state;
    m_stateReason = reason;
    Q_EMIT stateChanged(state);
}

QString HypervisorConnection::describe(ConnectionState state, int retryDelaySeconds)
{
    switch (state) {
    case ConnectionState::Closed:
        return QStringLiteral("closed");
    case ConnectionState::Connecting:
        return QStringLiteral("connecting");
    case ConnectionState::Active:
        return QStringLiteral("active");
    case ConnectionState::Lost:
        return QStringLiteral("lost");
    case ConnectionState::Reconnecting:
        return QStringLiteral("reconnecting in %1 s").arg(retryDelaySeconds);
    }
    return {};
}

void HypervisorConnection::close()
{
    std::lock_guard lock(m_mutex);
    if (!m_conn)
        return;
    unregisterCallbacks();
    virConnectClose(m_conn);
    m_conn = nullptr;
}

} // namespace sbw
