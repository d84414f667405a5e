#include "window/ConnectionStatusLabel.h"

#include "base/Async.h"
#include "base/VisibleText.h"
#include "hypervisor/HypervisorConnection.h"


namespace sbw {

ConnectionStatusLabel::ConnectionStatusLabel(HypervisorConnection* connection, QWidget* parent)
    : QLabel(parent), m_connection(connection)
{
    setObjectName(QStringLiteral("connectionStatus"));
    setTextFormat(Qt::PlainText);
    connect(connection, &HypervisorConnection::disconnected, this,
            &ConnectionStatusLabel::onDisconnected);
}

ConnectionStatusLabel::~ConnectionStatusLabel()
{
    // The probe dereferences the connection; the caller destroys it after this label.
    m_probe.waitForFinished();
}

void ConnectionStatusLabel::refresh()
{
    if (m_probe.isRunning())
        return;
    setText(tr("%1 · connecting…").arg(m_connection->uri()));
    setToolTip({});
    HypervisorConnection* connection = m_connection;
    m_probe = runAsync([connection] {
        Probe probe;
        if (auto opened = connection->ensureOpen(); !opened) {
            probe.text = opened.error().message;
            return probe;
        }
        probe.ok = true;
        probe.text = HypervisorConnection::describe(connection->accelerator());
        return probe;
    });
    onFinished(m_probe, this, [this](const Probe& probe) { onProbed(probe); });
}

void ConnectionStatusLabel::refreshIfDisconnected()
{
    if (!m_connected)
        refresh();
}

void ConnectionStatusLabel::onProbed(const Probe& probe)
{
    m_connected = probe.ok;
    if (probe.ok) {
        setText(tr("%1 · %2").arg(m_connection->uri(), probe.text));
        setToolTip(tr("libvirt connection and the acceleration its QEMU uses"));
    } else {
        setText(tr("%1 · not connected").arg(m_connection->uri()));
        setToolTip(makeVisible(probe.text));
    }
}

void ConnectionStatusLabel::onDisconnected(const QString& reason)
{
    m_connected = false;
    setText(tr("%1 · disconnected").arg(m_connection->uri()));
    setToolTip(makeVisible(reason));
}

} // namespace sbw
