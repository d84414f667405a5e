#include "approval/ApprovalQueue.h"

#include <algorithm>
#include <limits>

namespace sbw {

ApprovalQueue::ApprovalQueue(QObject* parent) : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &ApprovalQueue::expire);
}

ApprovalQueue::~ApprovalQueue()
{
    m_timer.stop();
    while (!m_entries.empty())
        withdraw(m_entries.begin()->first, QStringLiteral("the workbench closed before a decision"));
}

qint64 ApprovalQueue::enqueue(const ActionRequest& request, const QList<CommandVerdict>& commands,
                              ActionGate::Done done)
{
    const qint64 id = m_nextId++;
    Entry entry;
    entry.pending.id = id;
    entry.pending.request = request;
    entry.pending.commands = commands;
    entry.pending.asked = QDateTime::currentDateTimeUtc();
    entry.pending.deadline = QDeadlineTimer(m_timeout, Qt::PreciseTimer);
    entry.done = std::move(done);
    entry.timeout = m_timeout;
    m_entries.emplace(id, std::move(entry));
    // The asker took it back (its agent cancelled or left): the person no longer sees it.
    if (request.withdrawal)
        connect(request.withdrawal, &ActionWithdrawal::withdrawn, this,
                [this, id](const QString& reason) { withdraw(id, reason); });
    armTimer();
    Q_EMIT added(id);
    return id;
}

QList<PendingApproval> ApprovalQueue::pending() const
{
    QList<PendingApproval> list;
    for (const auto& [id, entry] : m_entries)
        list.append(entry.pending);
    return list;
}

std::optional<PendingApproval> ApprovalQueue::find(qint64 id) const
{
    const auto it = m_entries.find(id);
    if (it == m_entries.end())
        return std::nullopt;
    return it->second.pending;
}

bool ApprovalQueue::approve(qint64 id, const QString& approver)
{
    GateDecision decision;
    decision.allowed = true;
    decision.approval = Approval::Approved;
    decision.approver = approver;
    return finish(id, decision);
}

bool ApprovalQueue::approveAsPreviewed(qint64 id, const PreviewedOutcome& outcome, const QString& approver)
{
    GateDecision decision;
    decision.allowed = true;
    decision.approval = Approval::Approved;
    decision.approver = approver;
    decision.previewed = outcome;
    return finish(id, decision);
}

bool ApprovalQueue::approveEdited(qint64 id, const ActionRequest& edited, const QString& approver)
{
    const auto it = m_entries.find(id);
    if (it == m_entries.end())
        return false;
    ActionRequest request = it->second.pending.request;
    request.command = edited.command;
    request.language = edited.language;
    request.workdir = edited.workdir;
    request.path = edited.path;
    request.content = edited.content;
    GateDecision decision;
    decision.allowed = true;
    decision.approval = Approval::Approved;
    decision.approver = approver;
    decision.edited = request;
    return finish(id, decision);
}

bool ApprovalQueue::deny(qint64 id, const QString& approver, const QString& reason)
{
    GateDecision decision;
    decision.approval = Approval::Denied;
    decision.approver = approver;
    decision.reason = reason.trimmed().isEmpty() ? QStringLiteral("denied by %1").arg(approver) : reason;
    return finish(id, decision);
}

bool ApprovalQueue::withdraw(qint64 id, const QString& reason)
{
    GateDecision decision;
    decision.approval = Approval::Auto;
    decision.reason = reason;
    decision.withdrawn = true;
    return finish(id, decision);
}

bool ApprovalQueue::finish(qint64 id, GateDecision decision)
{
    const auto it = m_entries.find(id);
    if (it == m_entries.end())
        return false;
    ActionGate::Done done = std::move(it->second.done);
    m_entries.erase(it); // before done: whatever done does, this id is decided
    armTimer();
    if (done)
        done(decision);
    Q_EMIT decided(id, decision);
    return true;
}

void ApprovalQueue::expire()
{
    QList<std::pair<qint64, std::chrono::milliseconds>> expired;
    for (const auto& [id, entry] : m_entries) {
        if (entry.pending.deadline.hasExpired())
            expired.append({id, entry.timeout});
    }
    for (const auto& [id, timeout] : expired) {
        GateDecision decision;
        decision.approval = Approval::TimedOut;
        decision.reason = QStringLiteral("not approved within %1 s").arg(double(timeout.count()) / 1000.0);
        finish(id, decision);
    }
    armTimer();
}

void ApprovalQueue::armTimer()
{
    if (m_entries.empty()) {
        m_timer.stop();
        return;
    }
    qint64 next = std::numeric_limits<qint64>::max();
    for (const auto& [id, entry] : m_entries)
        next = std::min(next, entry.pending.deadline.remainingTime());
    m_timer.start(int(std::clamp<qint64>(next, 0, 24 * 3600 * 1000)));
}

} // namespace sbw
