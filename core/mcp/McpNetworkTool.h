#pragma once

#include "mcp/McpTool.h"

#include <memory>

namespace sbw {

class CommandLog;
class PolicyGate;

/// network_activity: what an agent may know about a workspace's allowlist network, read-only
/// (agents cannot change the rules; a person does, in the window or the policy file): the
/// network rules that judge its connections, in the order they are tried (the workspace's,
/// then the default ones), and its latest connection attempts from the command log, newest
/// first. `gate` and `log` must outlive the server;
/// a null `log` answers with no attempts and says why.
McpTool networkActivityTool(PolicyGate* gate, std::shared_ptr<CommandLog> log);

} // namespace sbw
