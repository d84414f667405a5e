#include "approval/Policy.h"
#include "mcp/McpToolSchema.h"
#include "mcp/McpTools.h"
#include "workspace/Workspace.h"

namespace sbw {

using namespace mcp;

McpTool forkWorkspaceTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("fork_workspace");
    tool.title = QStringLiteral("Fork a workspace");
    tool.description = QStringLiteral(
        "Makes a new workspace from a workspace as it is now: its files, and for a running one "
        "its memory (processes keep running in the fork), or from one of its checkpoints. The "
        "fork gets its own disk, name, checkpoints, variables and policy rules; the source keeps "
        "running. Deleting either never touches the other.");
    tool.kind = ActionKind::Fork;
    tool.inputSchema = objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("name"),
          stringSchema(QStringLiteral("The fork's name: 1-40 of a-z 0-9 -, starting with a letter or digit."))},
         {QStringLiteral("checkpoint"),
          stringSchema(QStringLiteral("Fork from this checkpoint of the workspace instead of its state now."))}},
        {QStringLiteral("workspace"), QStringLiteral("name")});
    tool.outputSchema = objectSchema(
        {{QStringLiteral("workspace"), stringSchema(QStringLiteral("The fork's name."))},
         {QStringLiteral("forked_from"), stringSchema(QStringLiteral("The source workspace."))},
         {QStringLiteral("checkpoint"), stringSchema(QStringLiteral("The checkpoint it was forked from; empty: the state then."))},
         {QStringLiteral("state"), stringSchema(QStringLiteral("The fork's state: running, paused or stopped."))},
         {QStringLiteral("warning"), stringSchema(QStringLiteral("Set when the policy rules could not be copied."))}},
        {QStringLiteral("workspace"), QStringLiteral("forked_from"), QStringLiteral("state")});
    tool.prepare = [](const QJsonObject& json) -> Expected<ActionRequest> {
        const Arguments arguments(json);
        auto request = workspaceRequest(arguments, ActionKind::Fork);
        if (!request)
            return request;
        auto name = arguments.requiredString(QStringLiteral("name"));
        if (!name)
            return name.error();
        if (auto valid = validateWorkspaceName(name.value()); !valid)
            return valid.error();
        auto checkpoint = arguments.string(QStringLiteral("checkpoint"), {});
        if (!checkpoint)
            return checkpoint.error();
        // What the row and the approver see: the fork's name, and the checkpoint when given.
        request->command = checkpoint->isEmpty()
                               ? name.value()
                               : QStringLiteral("%1 from checkpoint %2").arg(name.value(), checkpoint.value());
        return request;
    };
    tool.run = [sandboxes](const McpCall& call) {
        auto workspace = sandboxes->workspace(call.request.sandbox);
        if (!workspace)
            return McpToolResult::failure(workspace.error().message);
        const QString name = call.arguments.value(QLatin1String("name")).toString();
        const QString checkpoint = call.arguments.value(QLatin1String("checkpoint")).toString();
        auto fork = workspace.value()->fork(name, {checkpoint, true});
        if (!fork)
            return McpToolResult::failure(fork.error().message);
        std::shared_ptr<Workspace> made = std::move(fork.value());
        sandboxes->adopt(made);
        McpToolResult result;
        result.structured = {{QStringLiteral("workspace"), name},
                             {QStringLiteral("forked_from"), call.request.sandbox},
                             {QStringLiteral("checkpoint"), checkpoint},
                             {QStringLiteral("state"), workspaceStateName(made->state())}};
        if (auto copied = Policy::copyWorkspace(sandboxes->policyFile(), call.request.sandbox, name); !copied)
            result.structured.insert(QStringLiteral("warning"),
                                     QStringLiteral("the fork has no copy of the policy rules: %1")
                                         .arg(copied.error().message));
        return result;
    };
    return tool;
}

} // namespace sbw
