#include "mcp/McpNetworkTool.h"

#include "approval/PolicyGate.h"
#include "log/CommandLog.h"
#include "mcp/McpToolSchema.h"

#include <QJsonArray>

namespace sbw {

using namespace mcp;

namespace {

constexpr int kDefaultAttempts = 50;
constexpr int kMaxAttempts = 500;

QJsonObject ruleSchema()
{
    return objectSchema(
        {{QStringLiteral("list"), enumSchema(QStringLiteral("Whose rule: the workspace's own or a default one."),
                                             {QStringLiteral("workspace"), QStringLiteral("default")})},
         {QStringLiteral("number"), integerSchema(QStringLiteral("Position in its list, from 1."))},
         {QStringLiteral("pattern"),
          stringSchema(QStringLiteral("Host (\"pypi.org\"), wildcard (\"*.github.com\", \"*\") or CIDR range.") )},
         {QStringLiteral("ports"),
          QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                      {QStringLiteral("items"), integerSchema(QStringLiteral("A TCP port."))},
                      {QStringLiteral("description"), QStringLiteral("Ports the rule covers.")}}},
         {QStringLiteral("decision"), enumSchema(QStringLiteral("What the rule decides."),
                                                 {QStringLiteral("allow"), QStringLiteral("ask"), QStringLiteral("deny")})}},
        {QStringLiteral("list"), QStringLiteral("number"), QStringLiteral("pattern"), QStringLiteral("ports"),
         QStringLiteral("decision")});
}

QJsonObject attemptSchema()
{
    return objectSchema(
        {{QStringLiteral("id"), integerSchema(QStringLiteral("Command-log row."))},
         {QStringLiteral("started"), stringSchema(QStringLiteral("ISO 8601 UTC with milliseconds."))},
         {QStringLiteral("request"), stringSchema(QStringLiteral("Request line: \"CONNECT host:443\", \"GET http://host:80/path\"."))},
         {QStringLiteral("status"), stringSchema(QStringLiteral("\"succeeded\", \"running\", or the outcome with its reason (\"denied by policy rule 1 …\", \"error: cannot resolve …\")."))},
         {QStringLiteral("approval"), stringSchema(QStringLiteral("\"auto\" (by the policy), \"approved by NAME\", \"denied\", …"))},
         {QStringLiteral("address"), stringSchema(QStringLiteral("The server's address; empty when not connected."))},
         {QStringLiteral("bytes_sent"), integerSchema(QStringLiteral("Bytes from the guest's program to the server."))},
         {QStringLiteral("bytes_received"), integerSchema(QStringLiteral("Bytes from the server to the guest's program."))},
         {QStringLiteral("duration_ms"), nullableIntegerSchema(QStringLiteral("ms; null while it runs."))}},
        {QStringLiteral("id"), QStringLiteral("request"), QStringLiteral("status")});
}

QJsonArray portsOf(const PolicyRule& rule)
{
    QJsonArray ports;
    for (quint16 port : rule.ports.isEmpty() ? QList<quint16>{80, 443} : rule.ports)
        ports.append(int(port));
    return ports;
}

/// The network rules that judge `workspace`'s connections, in the order they are tried.
QJsonArray networkRules(const Policy& policy, const QString& workspace)
{
    QJsonArray rules;
    const auto add = [&](const QList<PolicyRule>& list, const QString& whose) {
        for (qsizetype i = 0; i < list.size(); ++i) {
            if (!list.at(i).covers(ActionKind::Network))
                continue;
            rules.append(QJsonObject{{QStringLiteral("list"), whose},
                                     {QStringLiteral("number"), int(i + 1)},
                                     {QStringLiteral("pattern"), list.at(i).pattern},
                                     {QStringLiteral("ports"), portsOf(list.at(i))},
                                     {QStringLiteral("decision"), policyDecisionName(list.at(i).decision)}});
        }
    };
    add(policy.workspaceRules.value(workspace), QStringLiteral("workspace"));
    add(policy.defaultRules, QStringLiteral("default"));
    return rules;
}

QJsonObject attempt(const ActionRecord& r)
{
    return {{QStringLiteral("id"), r.id},
            {QStringLiteral("started"), r.started.toString(Qt::ISODateWithMs)},
            {QStringLiteral("request"), r.command},
            {QStringLiteral("status"), r.statusText()},
            {QStringLiteral("approval"), r.approvalText()},
            {QStringLiteral("address"), r.networkAddress},
            {QStringLiteral("bytes_sent"), r.bytesSent},
            {QStringLiteral("bytes_received"), r.bytesReceived},
            {QStringLiteral("duration_ms"), r.durationMs >= 0 ? QJsonValue(r.durationMs) : QJsonValue()}};
}

} // namespace

McpTool networkActivityTool(PolicyGate* gate, std::shared_ptr<CommandLog> log)
{
    McpTool tool;
    tool.name = QStringLiteral("network_activity");
    tool.title = QStringLiteral("Network rules and attempts");
    tool.description = QStringLiteral(
        "Read-only: the network rules that decide where a workspace's programs may connect through the "
        "allowlist proxy (tried in order: the workspace's, then the default ones; a destination no rule "
        "names is asked of a person), and its latest connection attempts, newest first. A denied "
        "connection gets HTTP 403 with the reason from the proxy. Rules are changed by a person, not by "
        "agents.");
    tool.kind = ActionKind::List;
    tool.inputSchema = objectSchema(
        {{QStringLiteral("workspace"), stringSchema(QStringLiteral("Name of the workspace (list_workspaces)."))},
         {QStringLiteral("limit"), integerSchema(QStringLiteral("Most attempts to return (default 50)."), 1, kMaxAttempts)}},
        {QStringLiteral("workspace")});
    tool.outputSchema = objectSchema(
        {{QStringLiteral("workspace"), stringSchema(QStringLiteral("The workspace."))},
         {QStringLiteral("rules"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                               {QStringLiteral("items"), ruleSchema()}}},
         {QStringLiteral("attempts"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                  {QStringLiteral("items"), attemptSchema()}}},
         {QStringLiteral("attempts_note"),
          stringSchema(QStringLiteral("Empty, or why the attempts could not be read."))}},
        {QStringLiteral("workspace"), QStringLiteral("rules"), QStringLiteral("attempts")});
    tool.prepare = [](const QJsonObject& json) -> Expected<ActionRequest> {
        const Arguments arguments(json);
        auto workspace = arguments.requiredString(QStringLiteral("workspace"));
        if (!workspace)
            return workspace.error();
        if (auto limit = arguments.integer(QStringLiteral("limit"), kDefaultAttempts, 1, kMaxAttempts); !limit)
            return limit.error();
        ActionRequest request;
        request.kind = ActionKind::List;
        request.sandbox = workspace.value();
        request.command = QStringLiteral("network_activity");
        return request;
    };
    tool.run = [gate, log](const McpCall& call) {
        const QString workspace = call.request.sandbox;
        const int limit = Arguments(call.arguments).integer(QStringLiteral("limit"), kDefaultAttempts, 1, kMaxAttempts).value();
        const Policy policy = gate ? gate->policySnapshot() : Policy{};
        QJsonArray attempts;
        QString note;
        if (!log) {
            note = QStringLiteral("the command log is not open");
        } else if (auto rows = log->rows(LogFilter{workspace, {}, {}, {}, ActionKind::Network}, limit)) {
            for (const ActionRecord& row : rows.value())
                attempts.append(attempt(row));
        } else {
            note = rows.error().message;
        }
        McpToolResult result;
        result.structured = {{QStringLiteral("workspace"), workspace},
                             {QStringLiteral("rules"), networkRules(policy, workspace)},
                             {QStringLiteral("attempts"), attempts},
                             {QStringLiteral("attempts_note"), note}};
        result.end.outcome = Outcome::Succeeded;
        return result;
    };
    return tool;
}

} // namespace sbw
