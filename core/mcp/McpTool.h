#pragma once

#include "action/ActionGate.h"
#include "base/Expected.h"
#include "log/CommandLog.h"
#include "mcp/McpResources.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <atomic>
#include <functional>

namespace sbw {

class LoggedAction;

/// One tool call that the gate allowed, as the tool's run() sees it.
struct McpCall
{
    ActionRequest request;       ///< what was allowed (a person may have edited it)
    QJsonObject arguments;       ///< the client's arguments, checked by prepare()
    LoggedAction* log = nullptr; ///< the call's command-log row: feed it the output
    /// Becomes true when the client cancelled the call or went away: stop what can be stopped
    /// (exec kills the command's process group, run_code destroys its microVM). Its answer is
    /// never sent; the row ends as the result's `end` says (Cancelled for a stopped command).
    const std::atomic_bool* cancel = nullptr;
    /// Tells a client that asked for progress (the request's params._meta.progressToken) how a
    /// long call goes: a notifications/progress with `message` ("queued: 1 run ahead; …") and a
    /// count that grows by one each time. Does nothing for clients that did not ask, or once
    /// the call is cancelled. May be called from any thread; null outside the server.
    std::function<void(const QString& message)> progress;
    /// How the gate let it through: Approved when a person approved it (a workspace set to
    /// checkpoint before approved actions then takes one first, checkpointBeforeApproved()).
    Approval approval = Approval::Auto;
};

/// What a tool call produced: `structured` (matching the tool's output schema) and, for a
/// failed call, `error`, a sentence the agent reads (the result then has isError true). A
/// failure may keep `structured` (a command that timed out still has its output).
struct McpToolResult
{
    QJsonObject structured;
    QString error;
    /// Content blocks that follow the text block (MCP `image`, `resource`, ...), in order.
    QJsonArray content;
    /// Keys of `structured` (large values: stdout, stderr, file contents) that the text block
    /// leaves out for clients that read structuredContent, so the reply carries them once.
    QStringList structuredOnly;
    ActionEnd end; ///< how the call's command-log row ends
    /// Files the call made readable through resources/list and resources/read (run_code's
    /// artifacts); the server offers them once the call is answered.
    QList<mcp::McpResource> resources;

    static McpToolResult failure(const QString& message, Outcome outcome = Outcome::Error);
    /// A call that did not run: the agent reads "denied: REASON", the row says denied with
    /// REASON.
    static McpToolResult denied(const QString& reason);
};

/// A tool the MCP server offers (tools/list) and runs (tools/call).
struct McpTool
{
    QString name;
    QString title;
    QString description;
    ActionKind kind = ActionKind::Exec; ///< the kind of its command-log rows
    QJsonObject inputSchema;            ///< JSON Schema of the arguments (type object)
    QJsonObject outputSchema;           ///< JSON Schema of McpToolResult::structured (type object)
    /// Checks the arguments and says what the call would do, for the gate and the log (the
    /// actor is filled in by the server). Runs on the server's thread and must not block.
    /// Errors are sentences about the arguments ("path must be an absolute guest path").
    std::function<Expected<ActionRequest>(const QJsonObject& arguments)> prepare;
    /// Optional: completes the prepared request from the sandbox before the gate sees it (file
    /// tools resolve their path in the guest). Runs on a worker thread and may block; errors
    /// are answered as tool errors and the call never reaches the gate.
    std::function<Expected<ActionRequest>(const ActionRequest& prepared)> resolve;
    /// Does it, once the gate allowed it. Runs on a worker thread and may block.
    std::function<McpToolResult(const McpCall& call)> run;

    QJsonObject definition() const; ///< the tools/list entry
};

} // namespace sbw
