#include "workbench/Host.h"

#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "readystate/RunSandbox.h"
#include "sandbox/SandboxPool.h"
#include "stats/StatsSampler.h"

namespace sbw {

Host::Host(const QString& uri, QObject* parent)
    : QObject(parent), m_ownConnection(std::make_unique<HypervisorConnection>(uri)),
      m_connection(m_ownConnection.get())
{
    build();
}

Host::Host(HypervisorConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection)
{
    build();
}

Host::~Host()
{
    // What works on the connection goes before it (children would go after the members).
    delete m_sampler;
    m_sandboxPool.reset();
}

void Host::build()
{
    HypervisorConnection* connection = m_connection;
    // A pre-booted microVM waits paused for as long as the window lives, so it must end with
    // the connection (AUTODESTROY). A remote host's restore cannot promise that (libvirt's
    // restore has no such flag): its pool boots; its single runs restore.
    const SandboxSource source = isLocalUri(uri()) ? SandboxSource::Auto : SandboxSource::Boot;
    m_sandboxPool = std::make_shared<SandboxPool>(
        *connection, [connection, source](const SandboxOptions& options, const std::atomic_bool* cancel) {
            return startRunSandbox(*connection, options, source, {}, cancel);
        });
    m_sampler = new StatsSampler(connection, std::chrono::seconds(1), this);
    connect(connection, &HypervisorConnection::stateChanged, this, &Host::changed);
    // A lost connection took the pool's paused microVMs with it.
    connect(connection, &HypervisorConnection::disconnected, this, [this] { m_sandboxPool->dropLost(); });
}

QString Host::uri() const { return m_connection->uri(); }

void Host::open() { m_connection->openInBackground(); }

QString Host::summary() const
{
    const ConnectionState state = m_connection->state();
    QString text = hostDisplayName(uri()) + QStringLiteral(" · ") +
                   HypervisorConnection::describe(state, m_connection->retryDelaySeconds());
    if (state == ConnectionState::Active)
        text += QStringLiteral(" · ") +
                (m_connection->accelerator() == Accelerator::Kvm ? QStringLiteral("KVM") : QStringLiteral("TCG"));
    return text;
}

} // namespace sbw
