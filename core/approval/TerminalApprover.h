#pragma once

#include "action/ActionGate.h"
#include "base/Expected.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>

#include <memory>

class QSocketNotifier;

namespace sbw {

class ApprovalQueue;

/// Decides an ApprovalQueue's requests on a terminal, for the headless server (`sbw mcp`,
/// `sbw serve`), whose stdin and stdout may belong to the MCP client: it talks to the
/// controlling terminal (/dev/tty), one request at a time, oldest first:
///
///     sbw: agent (claude-code) asks: exec in workspace demo
///       rm -rf build
///       command: rm -rf build — no rule: asked
///     sbw: approve? y = yes, n [REASON] = no (denied in 300 s):
///
/// "y" or "yes" approves; "n" or "no", optionally followed by a reason, denies (the reason goes
/// to the agent; without one it is "denied by USER"); anything else asks again. A request that
/// times out or is decided elsewhere is reported and the next one is asked. Text from agents
/// is printed through makeVisible() (VisibleText.h): hidden characters are written as their
/// stand-ins (ESC as "\x1b", CR as "\r", U+202E as "<U+202E>"), so it cannot act on the terminal.
///
/// Reads through a QSocketNotifier: the event loop is never blocked. Lives on the queue's
/// thread. The approver is named by the local user name (ApprovalQueue's decisions carry it).
class TerminalApprover : public QObject
{
    Q_OBJECT

public:
    /// Opens `ttyPath` (the controlling terminal by default) for `queue`. Errors: there is no
    /// such terminal (a process without a controlling terminal gets ENXIO for /dev/tty).
    static Expected<std::unique_ptr<TerminalApprover>> open(ApprovalQueue* queue,
                                                            const QString& ttyPath = QStringLiteral("/dev/tty"));
    ~TerminalApprover() override;

    /// The login name of the user running the workbench ("root", "alice"); "person" if unknown.
    static QString localUserName();

private:
    TerminalApprover(ApprovalQueue* queue, int fd);
    void promptNext();
    void onReadable();
    void onDecided(qint64 id, const GateDecision& decision);
    void handleLine(const QString& line);
    void write(const QString& text);

    QPointer<ApprovalQueue> m_queue;
    int m_fd = -1;
    QSocketNotifier* m_notifier = nullptr;
    QByteArray m_input;
    qint64 m_current = 0; ///< id being asked; 0 when none
};

} // namespace sbw
