#pragma once

#include <QFuture>
#include <QLabel>

namespace sbw {

class HypervisorConnection;

/// Status-bar label naming the libvirt connection and its accelerator:
/// "qemu:///system · TCG (software emulation, slow)". Opening the connection blocks, so
/// refresh() does it on a thread-pool thread and shows the outcome when it arrives; the GUI
/// thread never waits on libvirt (except in the destructor, for a probe still running, since
/// the probe uses the connection).
class ConnectionStatusLabel : public QLabel
{
    Q_OBJECT

public:
    explicit ConnectionStatusLabel(HypervisorConnection* connection, QWidget* parent = nullptr);
    ~ConnectionStatusLabel() override;

    /// True once a probe succeeded and no disconnect was reported since.
    bool isConnected() const { return m_connected; }

public Q_SLOTS:
    /// Opens the connection (if needed) off the GUI thread and shows the accelerator.
    void refresh();
    /// refresh() unless connected.
    void refreshIfDisconnected();

private:
    struct Probe
    {
        bool ok = false;
        QString text; ///< accelerator description, or the error
    };

    void onProbed(const Probe& probe);
    void onDisconnected(const QString& reason);

    HypervisorConnection* m_connection;
    QFuture<Probe> m_probe; ///< the probe in progress or the last one
    bool m_connected = false;
};

} // namespace sbw
