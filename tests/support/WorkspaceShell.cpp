#include "WorkspaceShell.h"

#include "workspace/Workspace.h"

namespace sbw::test {

QByteArray shellOutput(Workspace& workspace, const QString& shellCommand)
{
    QByteArray out;
    QByteArray err;
    ExecRequest request;
    request.command = Workspace::commandLine({QStringLiteral("sh"), QStringLiteral("-c"), shellCommand});
    request.onStdout = [&](QByteArrayView bytes) { out += bytes; };
    request.onStderr = [&](QByteArrayView bytes) { err += bytes; };
    auto status = workspace.exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(120));
    if (!status)
        return "exec failed: " + status.error().message.toUtf8();
    if (status->exitStatus != 0)
        return "exit " + QByteArray::number(status->exitStatus.value_or(-1)) + ": " + err;
    return out;
}

} // namespace sbw::test
