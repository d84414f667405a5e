#pragma once

#include <QObject>

#include <atomic>

class QSocketNotifier;

namespace sbw {

/// SIGTERM, SIGINT and SIGHUP for the whole process, the one way the window and every CLI
/// command handle them. The handler only counts, sets requested() and writes a byte to a socket
/// pair (the self-pipe of Qt's "Calling Qt Functions From Unix Signal Handlers"); received() is
/// then emitted on the thread that made this object, so the program cleans up as if the person
/// had closed or cancelled it (a run is cancelled, microVMs and overlays are removed). A caller
/// that blocks without an event loop reads requested() instead (`sbw ws exec` passes it as the
/// command's cancel flag). The `forceAt`-th signal ends the process at once with the signal's
/// default action, for a person whose clean-up is stuck. One object per process; the handlers
/// stay until it is destroyed.
class TerminationSignals : public QObject
{
    Q_OBJECT

public:
    /// `forceAt`: which signal ends the process at once (2: the second one), at least 2.
    explicit TerminationSignals(int forceAt, QObject* parent = nullptr);
    ~TerminationSignals() override;

    /// Set by the first signal since this object was made; async-signal-safe to read.
    static const std::atomic_bool& requested();

Q_SIGNALS:
    /// `number` is the signal's number (SIGTERM, SIGINT or SIGHUP); `count` how many have
    /// arrived, this one included.
    void received(int number, int count);

private:
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace sbw
