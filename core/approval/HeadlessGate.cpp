#include "approval/HeadlessGate.h"

#include "approval/ApprovalPause.h"
#include "approval/ApprovalQueue.h"
#include "approval/PolicyGate.h"
#include "approval/TerminalApprover.h"

namespace sbw {

Expected<std::unique_ptr<PolicyGate>> makeHeadlessGate(const QString& policyPath, Policy::IfMissing ifMissing,
                                                       std::shared_ptr<CommandLog> log,
                                                       HypervisorConnection* connection)
{
    auto policy = Policy::load(policyPath, ifMissing);
    if (!policy)
        return policy.error();
    auto gate = std::make_unique<PolicyGate>(policy.value(), log);
    if (connection)
        gate->setApprovalPause(new ApprovalPause(connection, log, gate.get()));
    auto* queue = new ApprovalQueue(gate.get());
    if (auto approver = TerminalApprover::open(queue)) {
        approver.value()->setParent(gate.get());
        (void)approver.value().release();
        gate->setApprovalQueue(queue);
    }
    return gate;
}

} // namespace sbw
