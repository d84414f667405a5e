#pragma once

#include <QObject>

class QSocketNotifier;

namespace sbw {

/// SIGTERM, SIGINT and SIGHUP as a Qt signal on the thread that made this object, through a
/// socket pair the handler writes to (the self-pipe of Qt's "Calling Qt Functions From Unix
/// Signal Handlers"). The window closes on it as if the person had closed it: a run in flight
/// is cancelled and every microVM and overlay of the window is removed, where the default
/// action would have left the pre-booted microVM's overlay behind. Each handler is installed
/// with SA_RESETHAND, so a second signal of the same kind ends the process at once. One object
/// per process; the handlers stay until it is destroyed.
class TerminationSignals : public QObject
{
    Q_OBJECT

public:
    explicit TerminationSignals(QObject* parent = nullptr);
    ~TerminationSignals() override;

Q_SIGNALS:
    /// `number` is the signal's number (SIGTERM, SIGINT or SIGHUP).
    void received(int number);

private:
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace sbw
