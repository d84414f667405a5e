#include "approval/PolicyGate.h"

#include "approval/ApprovalPause.h"
#include "approval/ApprovalQueue.h"
#include "base/Logging.h"
#include "log/CommandLog.h"

#include <QElapsedTimer>
#include <QFileInfo>

namespace sbw {
namespace {

/// "exec: ls -la", "file-write: /root/a.txt", "pause: demo"
QString describe(const ActionRequest& request)
{
    const QString subject = actionSubject(request);
    return QStringLiteral("%1: %2").arg(actionKindName(request.kind), subject.isEmpty() ? request.sandbox : subject);
}

} // namespace

PolicyGate::PolicyGate(Policy policy, std::shared_ptr<CommandLog> log, QObject* parent)
    : ActionGate(parent), m_policy(std::move(policy)), m_log(std::move(log))
{
}

PolicyGate::~PolicyGate()
{
    if (!m_queue)
        return;
    const QSet<qint64> waiting = std::exchange(m_waiting, {});
    for (qint64 id : waiting)
        m_queue->withdraw(id, QStringLiteral("the workbench closed before a decision"));
}

void PolicyGate::setPolicy(const Policy& policy)
{
    const std::lock_guard lock(m_policyMutex);
    m_policy = policy;
}

void PolicyGate::setPolicyFile(const QString& path)
{
    m_policyFile = path;
    delete m_policyWatch;
    m_policyWatch = nullptr;
    if (path.isEmpty())
        return;
    // The folder too: a file that does not exist yet, or is replaced by a rename (QSaveFile),
    // is noticed through it.
    m_policyWatch = new QFileSystemWatcher(this);
    for (const QString& watched : {QFileInfo(path).absolutePath(), path})
        if (QFileInfo::exists(watched)) // a missing one would only draw Qt's warning
            m_policyWatch->addPath(watched);
    connect(m_policyWatch, &QFileSystemWatcher::fileChanged, this, &PolicyGate::reloadPolicyFile);
    // The folder also holds the command log, whose journal comes and goes with every row: only
    // a policy file that is back (created, or renamed into place) after the watch lost it counts.
    connect(m_policyWatch, &QFileSystemWatcher::directoryChanged, this, [this] {
        if (!m_policyWatch->files().contains(m_policyFile) && QFileInfo::exists(m_policyFile))
            reloadPolicyFile();
    });
}

void PolicyGate::reloadPolicyFile()
{
    if (!m_policyWatch->files().contains(m_policyFile) && QFileInfo::exists(m_policyFile))
        m_policyWatch->addPath(m_policyFile);
    if (!QFileInfo::exists(m_policyFile))
        return; // between a save's removal and its rename; the rename brings it back
    auto policy = Policy::load(m_policyFile);
    if (!policy) {
        qCWarning(lcLog) << "the approval policy file changed but cannot be read; the rules in force stay:"
                              << policy.error().message;
        return;
    }
    if (policy.value() == m_policy)
        return;
    setPolicy(policy.value());
    qCInfo(lcLog) << "approval policy read again from" << m_policyFile;
}

Policy PolicyGate::policySnapshot() const
{
    const std::lock_guard lock(m_policyMutex);
    return m_policy;
}

void PolicyGate::setApprovalPause(ApprovalPause* pause)
{
    m_pause = pause;
}

void PolicyGate::decide(const ActionRequest& request, Done done)
{
    GateDecision decision;
    const PolicyVerdict verdict = m_policy.verdict(request);
    switch (verdict.decision) {
    case PolicyDecision::Allow:
        decision.allowed = true;
        deliver(request, decision, 0, done);
        return;
    case PolicyDecision::Deny:
        decision.reason = verdict.denialReason();
        deliver(request, decision, 0, done);
        return;
    case PolicyDecision::Ask:
        break;
    }
    if (!m_queue) { // asked, and nobody is there to approve: denied, though by no person
        decision.approval = Approval::Denied;
        decision.reason = kNoApproverReason;
        logDenied(request, decision);
        if (done)
            done(decision);
        return;
    }
    auto id = std::make_shared<qint64>(0);
    QPointer<PolicyGate> self(this);
    QPointer<ApprovalPause> pause;
    if (m_pause && !request.sandbox.isEmpty() && m_policy.pausesWhileWaiting(request.sandbox)) {
        pause = m_pause;
        pause->hold(request.sandbox);
    }
    QElapsedTimer asked;
    asked.start();
    *id = m_queue->enqueue(request, verdict.commands, [self, id, request, done, asked, pause](const GateDecision& decided) {
        if (!self) { // the gate is gone: deliver without logging
            done(decided);
            return;
        }
        self->m_waiting.remove(*id);
        const qint64 waited = asked.elapsed();
        if (!pause) {
            self->deliver(request, decided, waited, done);
            return;
        }
        // The workspace runs again before the decision goes out (and an approved action runs).
        pause->release(request.sandbox, decided.allowed, [self, request, decided, waited, done] {
            if (self)
                self->deliver(request, decided, waited, done);
            else
                done(decided);
        });
    });
    if (m_queue->find(*id)) // not decided already, from a handler of the queue's added()
        m_waiting.insert(*id);
}

Expected<void> PolicyGate::setDestinationRule(const QString& workspace, const NetworkDestination& destination,
                                              PolicyDecision decision, const QString& approver)
{
    Policy policy = m_policy;
    if (!m_policyFile.isEmpty()) {
        auto onDisk = Policy::load(m_policyFile);
        if (!onDisk)
            return onDisk.error();
        policy = std::move(onDisk).value();
    }
    policy.setDestinationRule(workspace, destination, decision);
    if (!m_policyFile.isEmpty())
        if (auto saved = policy.save(m_policyFile); !saved)
            return saved;
    setPolicy(policy);
    judgeWaitingConnections(approver);
    return {};
}

void PolicyGate::judgeWaitingConnections(const QString& approver)
{
    if (!m_queue)
        return;
    // Every connection in the queue, also one whose enqueue() has not returned yet (a rule set
    // from the queue's added() signal): only the gate puts connections there.
    for (const PendingApproval& pending : m_queue->pending()) {
        if (pending.request.kind != ActionKind::Network)
            continue;
        const PolicyVerdict verdict = m_policy.verdict(pending.request);
        if (verdict.decision == PolicyDecision::Allow)
            m_queue->approve(pending.id, approver);
        else if (verdict.decision == PolicyDecision::Deny)
            m_queue->deny(pending.id, approver, verdict.denialReason());
    }
}

void PolicyGate::deliver(const ActionRequest& request, const GateDecision& decision, qint64 waitedMs,
                         const Done& done)
{
    if (decision.approval != Approval::Auto)
        logApproval(request, decision, waitedMs);
    if (!decision.allowed)
        logDenied(request, decision);
    if (done)
        done(decision);
}

void PolicyGate::logApproval(const ActionRequest& request, const GateDecision& decision, qint64 waitedMs)
{
    if (!m_log)
        return;
    ActionStart start;
    start.sandbox = request.sandbox;
    start.actor = request.actor;
    start.kind = ActionKind::Approval;
    start.command = describe(request);
    if (decision.edited)
        start.command = QStringLiteral("%1\nedited to %2").arg(start.command, describe(*decision.edited));
    start.approval = decision.approval;
    start.approver = decision.approver;
    start.elapsedMs = waitedMs;
    ActionEnd end;
    end.outcome = decision.allowed ? Outcome::Succeeded : Outcome::Denied;
    end.error = decision.reason;
    writeRow(start, end);
}

void PolicyGate::logDenied(const ActionRequest& request, const GateDecision& decision)
{
    if (!m_log)
        return;
    ActionStart start;
    start.sandbox = request.sandbox;
    start.actor = request.actor;
    start.kind = request.kind;
    start.command = actionSubject(request);
    start.workdir = request.workdir;
    start.approval = decision.approval;
    start.approver = decision.approver;
    ActionEnd end;
    end.outcome = decision.withdrawn ? Outcome::Cancelled : Outcome::Denied;
    end.error = decision.reason;
    writeRow(start, end);
}

void PolicyGate::writeRow(const ActionStart& start, const ActionEnd& end)
{
    auto id = m_log->begin(start);
    if (!id) {
        qCWarning(lcLog) << "cannot log a decision of the approval policy:" << id.error().message;
        return;
    }
    if (auto finished = m_log->finish(id.value(), end); !finished)
        qCWarning(lcLog) << "cannot log a decision of the approval policy:" << finished.error().message;
}

} // namespace sbw
