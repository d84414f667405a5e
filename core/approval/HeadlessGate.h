#pragma once

#include "approval/Policy.h"
#include "approval/PolicyGate.h"
#include "base/Expected.h"

#include <QObject>
#include <QString>

#include <memory>

namespace sbw {

class CommandLog;
class HypervisorConnection;

/// The gate of the headless MCP server (`sbw mcp`, `sbw serve`): a PolicyGate on the policy
/// file at `policyPath` whose `ask` requests are put to the person at the controlling terminal
/// (TerminalApprover) when there is one, and otherwise denied with "needs approval; no approver
/// attached". With a terminal, workspaces whose policy says pauseWhileWaiting are paused on
/// `connection` while their requests wait (ApprovalPause). The returned gate owns its approval
/// queue, approver and pause. `log` may be null; `connection` (not owned) must outlive the gate.
/// Errors: the policy file cannot be read or parsed, or is missing with Policy::IfMissing::Error
/// (a file the user named).
Expected<std::unique_ptr<PolicyGate>> makeHeadlessGate(const QString& policyPath, Policy::IfMissing ifMissing,
                                                       std::shared_ptr<CommandLog> log,
                                                       HypervisorConnection* connection);

} // namespace sbw
