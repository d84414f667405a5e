#pragma once

#include "action/ActionGate.h"
#include "approval/ApprovalQueue.h" // QPointer<ApprovalQueue> needs the complete type
#include "approval/Policy.h"

#include <QFileSystemWatcher>
#include <QPointer>
#include <QSet>

#include <memory>
#include <mutex>

namespace sbw {

class ApprovalPause;
class CommandLog;
struct ActionEnd;
struct ActionStart;

/// The ActionGate of the workbench: the policy decides; `ask` goes to a person.
///
/// - allow / deny by the policy: `done` runs before decide() returns, with Approval::Auto
///   (denied: the reason names the rule and, for exec and run (sh), the command,
///   `denied by policy rule 3 (exec "rm *"): rm -rf /root`, see PolicyVerdict::denialReason()).
/// - ask with an approval queue attached (the GUI's queue pane, or a TerminalApprover when
///   headless on a terminal): the request waits in the queue, with the policy's verdict on each
///   of its commands (PendingApproval::commands), until a person decides or its deadline
///   passes (Approval::TimedOut).
/// - ask without a queue: denied at once (Approval::Denied, no approver) with the reason
///   kNoApproverReason.
///
/// Command log: every decision of a person (approved, denied, timed out) is a row of kind
/// ActionKind::Approval (actor: who asked; approver: who decided; command: "KIND: SUBJECT";
/// outcome Succeeded when approved, Denied otherwise with the reason as error) that starts
/// when the request was asked and ends at the decision, so its duration is the wait (ms). A
/// denied action never runs, so the gate also writes the action's own row, Outcome::Denied
/// with its approval, approver and reason. The row of an allowed action is the caller's
/// (LoggedAction with GateDecision::approval and approver).
///
/// Pause while waiting: with an ApprovalPause set, a request for a workspace whose policy says
/// pauseWhileWaiting (Policy::pausesWhileWaiting()) holds the workspace paused while it waits;
/// the decision is delivered (and logged) after the workspace is resumed.
///
/// Destroying the gate denies its waiting requests ("the workbench closed before a decision").
/// Lives on the thread of its event loop; decide() must be called there.
class PolicyGate : public ActionGate
{
    Q_OBJECT

public:
    static inline const QString kNoApproverReason = QStringLiteral("needs approval; no approver attached");

    /// `log` may be null (nothing is logged).
    PolicyGate(Policy policy, std::shared_ptr<CommandLog> log, QObject* parent = nullptr);
    ~PolicyGate() override;

    void setPolicy(const Policy& policy);
    const Policy& policy() const { return m_policy; }
    /// A copy of the policy, for another thread (an MCP tool's worker).
    Policy policySnapshot() const;

    /// The policy file that setDestinationRule() writes (the workbench's: Policy::defaultPath());
    /// empty, the default: it changes the policy in memory only. The gate also judges by that
    /// file from then on: whenever it changes (`sbw policy`, a fork's copied rules from `sbw ws
    /// fork` or MCP fork_workspace, another window) it is read again; a file that cannot be read
    /// or parsed leaves the policy in force as it was (logged).
    void setPolicyFile(const QString& path);

    /// "Allow always" or "deny always" for a connection, by `approver`: reads the policy file
    /// again (the policy editor, `sbw` or another window may have changed it), sets the rule
    /// (Policy::setDestinationRule()), writes the file and judges by it from now on. Then the
    /// connections waiting in the queue are judged again: those the new policy allows or denies
    /// are approved or denied as if by `approver` (an asked request of another destination
    /// stays). Errors: the file cannot be read, parsed or written; nothing changed then.
    Expected<void> setDestinationRule(const QString& workspace, const NetworkDestination& destination,
                                      PolicyDecision decision, const QString& approver);

    /// Where `ask` requests wait; not owned; null detaches (later asks are denied).
    void setApprovalQueue(ApprovalQueue* queue) { m_queue = queue; }
    ApprovalQueue* approvalQueue() const { return m_queue; }

    /// Pauses workspaces while their requests wait (see above); not owned; null: never.
    void setApprovalPause(ApprovalPause* pause);

    void decide(const ActionRequest& request, Done done) override;
    /// Whether decide() would put `request` to a person now: the policy asks, and there is an
    /// approval queue. (Without one an asked action is denied at once.)
    bool asksPerson(const ActionRequest& request) const
    {
        return m_queue && m_policy.decide(request) == PolicyDecision::Ask;
    }

private:
    /// `waitedMs`: from the request to a person's (or the deadline's) decision; 0 for the policy's.
    void deliver(const ActionRequest& request, const GateDecision& decision, qint64 waitedMs, const Done& done);
    void logApproval(const ActionRequest& request, const GateDecision& decision, qint64 waitedMs);
    void logDenied(const ActionRequest& request, const GateDecision& decision);
    void writeRow(const ActionStart& start, const ActionEnd& end);

    /// Decides the waiting connections that the policy now allows or denies.
    void judgeWaitingConnections(const QString& approver);
    /// Reads m_policyFile again and watches it anew (a save replaces the file).
    void reloadPolicyFile();

    Policy m_policy;
    /// Held while m_policy changes, and by policySnapshot(): the gate's own thread reads it
    /// without the lock (only that thread writes it).
    mutable std::mutex m_policyMutex;
    QString m_policyFile;
    QFileSystemWatcher* m_policyWatch = nullptr;
    std::shared_ptr<CommandLog> m_log;
    QPointer<ApprovalQueue> m_queue;
    QPointer<ApprovalPause> m_pause;
    QSet<qint64> m_waiting; ///< ids of this gate's requests in m_queue
};

} // namespace sbw
