#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QObject>
#include <QString>
#include <memory>

typedef struct _virConnect* virConnectPtr;

namespace sbw {

/// A domain's serial console (the guest's ttyS0) as a libvirt stream: virDomainOpenConsole()
/// with VIR_DOMAIN_CONSOLE_FORCE (it takes the console over from any other client, such as a
/// `virsh console` left open). Works on local and remote connections alike.
///
/// The stream is nonblocking; its callback runs on the libvirt event-loop thread
/// (LibvirtEventLoop), reads whatever has arrived and posts it to this object's thread, where
/// received() is emitted. ended() is emitted once when the stream ends: the guest powered off
/// or was destroyed, the daemon closed the console, or the connection was lost. Call open()
/// again to reattach (for example when the domain has started again).
///
/// Use from the thread the object lives in (normally the GUI thread).
class ConsoleStream : public QObject
{
    Q_OBJECT

public:
    explicit ConsoleStream(QObject* parent = nullptr);
    ~ConsoleStream() override;

    /// Attaches to the console of the running domain `domainName`, replacing any stream this
    /// object had (without emitting ended() for it). Blocks for a few libvirt round trips.
    /// Errors: no such domain, domain not running, console refused, connection lost
    /// ("cannot open the serial console of NAME: <libvirt's reason>").
    Expected<void> open(virConnectPtr conn, const QString& domainName);

    bool isOpen() const;

    /// Sends `bytes` to the guest's console (as typed); queued while the stream is busy,
    /// dropped when it is not open.
    void write(QByteArrayView bytes);

    /// Detaches without emitting ended().
    void close();

    struct State;

Q_SIGNALS:
    /// Bytes the guest wrote to its console, in order, as they arrive.
    void received(const QByteArray& bytes);
    /// The stream ended; `reason` is a sentence ("the console stream ended" or
    /// "the console stream failed: <libvirt's reason>").
    void ended(const QString& reason);

private:
    std::shared_ptr<State> m_state;
};

} // namespace sbw
