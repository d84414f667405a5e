#include "AgentRequests.h"

namespace sbw::test {

ActionRequest agentExec(const QString& command, const QString& sandbox)
{
    ActionRequest request;
    request.sandbox = sandbox;
    request.actor = {Actor::Kind::Agent, QStringLiteral("claude-code")};
    request.kind = ActionKind::Exec;
    request.command = command;
    request.workdir = QStringLiteral("/root");
    return request;
}

ActionRequest agentFileWrite(const QString& path, const QByteArray& content)
{
    ActionRequest request = agentExec({});
    request.kind = ActionKind::FileWrite;
    request.path = path;
    request.content = content;
    return request;
}

} // namespace sbw::test
