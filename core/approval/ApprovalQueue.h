#pragma once

#include "action/ActionGate.h"
#include "approval/Policy.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QList>
#include <QObject>
#include <QTimer>

#include <chrono>
#include <map>
#include <optional>

namespace sbw {

/// One action waiting for a person's decision.
struct PendingApproval
{
    qint64 id = 0;          ///< unique in this queue, increasing from 1
    ActionRequest request;  ///< what was asked (request.actor says who)
    QDateTime asked;        ///< UTC
    QDeadlineTimer deadline; ///< when it is denied as Approval::TimedOut
    /// exec, run (sh): the commands the policy found in it, each with its verdict
    /// (PolicyVerdict::commands); empty for other actions.
    QList<CommandVerdict> commands;
};

/// The actions that wait for a person: each is decided once, by approve(), approveEdited(),
/// deny(), its deadline (denied as Approval::TimedOut) or the queue's destruction (denied,
/// "the workbench closed before a decision"). The decision goes to the `done` given to
/// enqueue(), then the entry is gone (also when the request's ActionRequest::withdrawal fires:
/// withdrawn with its reason): a second decision on the same id does nothing and
/// returns false. Lives on one thread (the GUI's, or the headless server's event loop);
/// `done` and the signals run there.
class ApprovalQueue : public QObject
{
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(5);

    explicit ApprovalQueue(QObject* parent = nullptr);
    ~ApprovalQueue() override;

    /// Time a request waits before it is denied as timed out; applies to requests enqueued later.
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    std::chrono::milliseconds timeout() const { return m_timeout; }

    /// Adds `request` with the policy's verdict on its commands; returns its id. Emits added().
    qint64 enqueue(const ActionRequest& request, ActionGate::Done done)
    {
        return enqueue(request, {}, std::move(done));
    }
    qint64 enqueue(const ActionRequest& request, const QList<CommandVerdict>& commands,
                   ActionGate::Done done);

    /// Waiting requests, oldest first.
    QList<PendingApproval> pending() const;
    std::optional<PendingApproval> find(qint64 id) const;

    /// Allows request `id` as asked; `approver` names the person. False if `id` is not pending.
    bool approve(qint64 id, const QString& approver);
    /// Allows request `id` with `edited`'s command, language, workdir, path and content (its
    /// sandbox, actor and kind stay those of the request). False if `id` is not pending.
    bool approveEdited(qint64 id, const ActionRequest& edited, const QString& approver);
    /// Allows request `id` as already done: it ran in a preview whose result its workspace took
    /// (ActionPreview::adopt); the asker gets `outcome`. False if `id` is not pending.
    bool approveAsPreviewed(qint64 id, const PreviewedOutcome& outcome, const QString& approver);
    /// Refuses request `id`; `reason` is returned to the agent as is ("denied by APPROVER" when
    /// empty). False if `id` is not pending.
    bool deny(qint64 id, const QString& approver, const QString& reason);
    /// Takes `id` out without a person's decision and gives `done` the denial `reason`
    /// (Approval::Auto): for a gate that goes away. False if `id` is not pending.
    bool withdraw(qint64 id, const QString& reason);

Q_SIGNALS:
    void added(qint64 id);
    /// `id` left the queue with `decision` (after its `done` ran).
    void decided(qint64 id, const sbw::GateDecision& decision);

private:
    struct Entry
    {
        PendingApproval pending;
        ActionGate::Done done;
        std::chrono::milliseconds timeout; ///< the wait this entry was given
    };

    bool finish(qint64 id, GateDecision decision);
    void expire();
    void armTimer();

    std::chrono::milliseconds m_timeout = kDefaultTimeout;
    std::map<qint64, Entry> m_entries;
    qint64 m_nextId = 1;
    QTimer m_timer;
};

} // namespace sbw
