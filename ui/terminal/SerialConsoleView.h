#pragma once

#include "hypervisor/ConsoleLog.h"
#include "hypervisor/ConsoleStream.h"

#include <QString>
#include <QWidget>

class QLabel;

namespace sbw {

class HypervisorConnection;
class TerminalWidget;

/// The serial console of one domain: a TerminalWidget on a ConsoleStream, with a status line
/// under it. It shows the boot log and the guest's console shell, before SSH is up; what the
/// user types goes to the console.
///
/// What the guest wrote comes from the domain's console log (ConsoleLog) when it has one and
/// the connection is local: everything since the domain's QEMU started, however late the view
/// opens, the window's own restarts included. Otherwise it comes from the stream, from the
/// moment the view attached, and the status line says why the earlier output is missing.
///
/// When the stream ends the status line says why ("console closed: guest powered off",
/// "… guest destroyed", "… guest crashed", or the stream's own reason); the view reattaches
/// by itself when `connection` reports that the domain started again, and on reopen().
/// Attaching blocks the calling thread for a few libvirt round trips.
class SerialConsoleView : public QWidget
{
    Q_OBJECT

public:
    /// Attaches to the console of `domainName` on `connection` (which must be open and must
    /// outlive the view).
    SerialConsoleView(HypervisorConnection& connection, QString domainName,
                      QWidget* parent = nullptr);

    /// Attaches (again) to the domain's console; the status line tells how it went.
    void reopen();

    TerminalWidget* terminal() const { return m_terminal; }
    /// The console stream (a child object; its ended() tells when the guest side went away).
    ConsoleStream* stream() const { return m_stream; }
    bool isAttached() const { return m_stream->isOpen(); }
    /// The status line's text: "console attached to NAME", "console attached to NAME; output
    /// from before it is not shown: REASON", "console closed: REASON", "console not attached:
    /// ERROR".
    QString statusText() const;

Q_SIGNALS:
    void statusChanged(const QString& text);

private:
    void onLifecycle(const QString& uuid, int event, int detail);
    void onEnded(const QString& reason);
    void setStatus(const QString& text);
    /// Follows the domain's console log; returns why it cannot, or an empty string.
    QString followLog();

    HypervisorConnection& m_connection;
    const QString m_domainName;
    ConsoleStream* m_stream;
    ConsoleLog* m_log; ///< open while the guest's output comes from it rather than the stream
    TerminalWidget* m_terminal;
    QLabel* m_status;
    QString m_domainUuid; ///< for matching lifecycle events; looked up by reopen()
    QString m_stopReason; ///< why the domain stopped, from its lifecycle event; empty while running
};

} // namespace sbw
