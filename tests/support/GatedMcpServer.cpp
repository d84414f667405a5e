#include "GatedMcpServer.h"

#include "approval/Policy.h"
#include "log/CommandLog.h"
#include "mcp/McpTools.h"

namespace sbw::test {

GatedMcpServer::GatedMcpServer(HypervisorConnection* connection, const Policy& policy,
                               const std::shared_ptr<CommandLog>& log)
    : gate(policy, log), server(&gate, log)
{
    gate.setApprovalQueue(&queue);
    for (McpTool& tool : workbenchTools(std::make_shared<McpSandboxes>(connection)))
        server.addTool(std::move(tool));
    session = server.openSession(QStringLiteral("stdio"));
}

void GatedMcpServer::send(int id, const QString& method, const QJsonObject& params)
{
    answer.reset();
    server.handle(session,
                  QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                              {QStringLiteral("id"), id},
                              {QStringLiteral("method"), method},
                              {QStringLiteral("params"), params}},
                  [this](const QJsonObject& reply) { answer = reply.value(QLatin1String("result")).toObject(); });
}

void GatedMcpServer::initialize(const QString& clientName)
{
    send(1, QStringLiteral("initialize"),
         {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
          {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), clientName}}}});
}

void GatedMcpServer::call(int id, const QString& tool, const QJsonObject& arguments)
{
    send(id, QStringLiteral("tools/call"), {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}});
}

} // namespace sbw::test
