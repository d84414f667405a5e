#pragma once

#include "approval/ApprovalQueue.h"
#include "approval/PolicyGate.h"
#include "mcp/McpServer.h"

#include <QJsonObject>
#include <QString>

#include <memory>
#include <optional>

namespace sbw {
class CommandLog;
class HypervisorConnection;
class Policy;
} // namespace sbw

namespace sbw::test {

/// An MCP server with the workbench's tools behind a PolicyGate with an approval queue, in the
/// test's process (the window's arrangement: a person decides in `queue`), one stdio session,
/// and the result of the last request sent (`answer`, empty until it came).
struct GatedMcpServer
{
    GatedMcpServer(HypervisorConnection* connection, const Policy& policy, const std::shared_ptr<CommandLog>& log);

    void send(int id, const QString& method, const QJsonObject& params);
    /// Sends initialize as client `clientName` (the actor name of its calls).
    void initialize(const QString& clientName);
    /// Sends tools/call of `tool` with `arguments`.
    void call(int id, const QString& tool, const QJsonObject& arguments);

    ApprovalQueue queue;
    PolicyGate gate;
    McpServer server;
    QString session;
    std::optional<QJsonObject> answer;
};

} // namespace sbw::test
