#include "base/GuestTextDecoder.h"
#include "guest/GuestPathResolver.h"
#include "guest/SftpClient.h"
#include "mcp/McpToolSchema.h"
#include "mcp/McpTools.h"
#include "workspace/Workspace.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

namespace sbw {

using namespace mcp;

namespace {

/// read_file and write_file move whole files through one JSON message.
constexpr qint64 kMaxFileBytes = qint64(16) << 20;

const QStringList kEncodings{QStringLiteral("utf-8"), QStringLiteral("base64")};

Expected<ActionRequest> fileRequest(const QJsonObject& json, ActionKind kind,
                                    const QString& fallbackPath = {})
{
    const Arguments arguments(json);
    auto workspace = arguments.requiredString(QStringLiteral("workspace"));
    if (!workspace)
        return workspace.error();
    auto path = fallbackPath.isEmpty() ? arguments.requiredString(QStringLiteral("path"))
                                       : arguments.string(QStringLiteral("path"), fallbackPath);
    if (!path)
        return path.error();
    if (!path.value().startsWith(QLatin1Char('/')))
        return makeError(QStringLiteral("path must be an absolute guest path (starting with /)"));
    if (path.value().contains(QChar(0)))
        return makeError(QStringLiteral("path cannot hold a NUL character"));
    ActionRequest request;
    request.kind = kind;
    request.sandbox = workspace.value();
    request.path = path.value();
    return request;
}

/// Workspace `name`'s SSH session, connected when there is none.
Expected<std::shared_ptr<GuestSession>> sessionOf(McpSandboxes& sandboxes, const QString& name)
{
    auto workspace = sandboxes.workspace(name);
    if (!workspace)
        return workspace.error();
    return workspace.value()->session(McpSandboxes::readyDeadline(workspace.value()->connection()));
}

/// An SFTP client on the workspace's session.
Expected<std::unique_ptr<SftpClient>> sftp(McpSandboxes& sandboxes, const QString& name)
{
    auto session = sessionOf(sandboxes, name);
    if (!session)
        return session.error();
    return session.value()->openSftp();
}

/// Where `path` leads in workspace `name` (resolveGuestPath()).
Expected<QString> resolveInWorkspace(McpSandboxes& sandboxes, const QString& name,
                                     const QString& path)
{
    auto session = sessionOf(sandboxes, name);
    if (!session)
        return session.error();
    return resolveGuestPath(*session.value(), path);
}

/// McpTool::resolve of the file tools: the policy, the approver and the row see the path the
/// action will really touch (`/root/link/x` with link → /etc is `/etc/x`).
std::function<Expected<ActionRequest>(const ActionRequest&)>
pathResolver(std::shared_ptr<McpSandboxes> sandboxes)
{
    return [sandboxes](const ActionRequest& prepared) -> Expected<ActionRequest> {
        auto resolved = resolveInWorkspace(*sandboxes, prepared.sandbox, prepared.path);
        if (!resolved)
            return resolved.error();
        ActionRequest request = prepared;
        request.path = resolved.value();
        return request;
    };
}

/// Just before the action: the approved path must still resolve to itself. A symlink swapped
/// into it since the gate's check (or an approver's edit that names a symlink) is refused, so
/// the action cannot be redirected past the policy. `doing`: "written", "read", "listed".
Expected<void> checkStillResolves(McpSandboxes& sandboxes, const ActionRequest& request,
                                  const QString& doing)
{
    auto now = resolveInWorkspace(sandboxes, request.sandbox, request.path);
    if (!now)
        return now.error();
    if (now.value() != request.path)
        return makeError(
            QStringLiteral("refused: %1 was approved, but it now leads to %2 (a symlink changed in "
                           "between); nothing was %3")
                .arg(request.path, now.value(), doing));
    return {};
}

QString typeName(SftpEntry::Type type)
{
    switch (type) {
    case SftpEntry::Type::File:
        return QStringLiteral("file");
    case SftpEntry::Type::Directory:
        return QStringLiteral("directory");
    case SftpEntry::Type::Symlink:
        return QStringLiteral("symlink");
    case SftpEntry::Type::Special:
        return QStringLiteral("special");
    case SftpEntry::Type::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

McpTool readFileTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("read_file");
    tool.title = QStringLiteral("Read a file of a workspace");
    tool.description = QStringLiteral(
        "Reads a whole file (up to 16 MiB) of a running workspace. Text that is valid UTF-8 comes "
        "back as is (encoding utf-8), anything else as base64.");
    tool.kind = ActionKind::Download;
    tool.inputSchema = objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("path"), stringSchema(QStringLiteral("Absolute guest path."))}},
        {QStringLiteral("workspace"), QStringLiteral("path")});
    tool.outputSchema = objectSchema(
        {{QStringLiteral("path"), stringSchema(QStringLiteral("The guest path."))},
         {QStringLiteral("size"), integerSchema(QStringLiteral("Bytes."), 0)},
         {QStringLiteral("encoding"),
          enumSchema(QStringLiteral("How content is encoded."), kEncodings)},
         {QStringLiteral("content"), stringSchema(QStringLiteral("The file's bytes."))}},
        {QStringLiteral("path"), QStringLiteral("size"), QStringLiteral("encoding"),
         QStringLiteral("content")});
    tool.prepare = [](const QJsonObject& json) { return fileRequest(json, ActionKind::Download); };
    tool.resolve = pathResolver(sandboxes);
    tool.run = [sandboxes](const McpCall& call) {
        if (auto same = checkStillResolves(*sandboxes, call.request, QStringLiteral("read")); !same)
            return McpToolResult::failure(same.error().message);
        auto client = sftp(*sandboxes, call.request.sandbox);
        if (!client)
            return McpToolResult::failure(client.error().message);
        const QByteArray path = call.request.path.toUtf8();
        auto entry = client.value()->stat(path);
        if (!entry)
            return McpToolResult::failure(entry.error().message);
        if (entry->type != SftpEntry::Type::File)
            return McpToolResult::failure(
                QStringLiteral("%1 is not a regular file").arg(call.request.path));
        if (entry->size > kMaxFileBytes)
            return McpToolResult::failure(
                QStringLiteral("%1 has %2 bytes; read_file reads up to 16 MiB")
                    .arg(call.request.path)
                    .arg(entry->size));
        QTemporaryDir folder;
        const QString local = folder.filePath(QStringLiteral("file"));
        if (auto copied = client.value()->download(path, local); !copied)
            return McpToolResult::failure(copied.error().message);
        QFile file(local);
        if (!file.open(QIODevice::ReadOnly))
            return McpToolResult::failure(
                QStringLiteral("cannot read the downloaded copy: %1").arg(file.errorString()));
        const QByteArray bytes = file.readAll();
        const bool text = isValidUtf8(bytes);
        McpToolResult result;
        result.structured = {
            {QStringLiteral("path"), call.request.path},
            {QStringLiteral("size"), bytes.size()},
            {QStringLiteral("encoding"), text ? kEncodings[0] : kEncodings[1]},
            {QStringLiteral("content"),
             text ? QString::fromUtf8(bytes) : QString::fromLatin1(bytes.toBase64())}};
        result.structuredOnly = {QStringLiteral("content")};
        return result;
    };
    return tool;
}

McpTool writeFileTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("write_file");
    tool.title = QStringLiteral("Write a file of a workspace");
    tool.description = QStringLiteral(
        "Creates or replaces a file (mode 0644; up to 16 MiB) in a running workspace; its folder "
        "must exist. content is UTF-8 text, or base64 with encoding base64.");
    tool.kind = ActionKind::FileWrite;
    tool.inputSchema = objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("path"), stringSchema(QStringLiteral("Absolute guest path."))},
         {QStringLiteral("content"), stringSchema(QStringLiteral("The new content."))},
         {QStringLiteral("encoding"),
          enumSchema(QStringLiteral("utf-8 (default) or base64."), kEncodings)}},
        {QStringLiteral("workspace"), QStringLiteral("path"), QStringLiteral("content")});
    tool.outputSchema =
        objectSchema({{QStringLiteral("path"), stringSchema(QStringLiteral("The guest path."))},
                      {QStringLiteral("size"), integerSchema(QStringLiteral("Bytes written."), 0)}},
                     {QStringLiteral("path"), QStringLiteral("size")});
    tool.prepare = [](const QJsonObject& json) -> Expected<ActionRequest> {
        auto request = fileRequest(json, ActionKind::FileWrite);
        if (!request)
            return request;
        const Arguments arguments(json);
        auto encoding = arguments.choice(QStringLiteral("encoding"), kEncodings, kEncodings[0]);
        if (!encoding)
            return encoding.error();
        const QJsonValue content = json.value(QLatin1String("content"));
        if (!content.isString())
            return makeError(QStringLiteral("content is required and must be a string"));
        if (encoding.value() == kEncodings[1]) {
            auto decoded = QByteArray::fromBase64Encoding(content.toString().toLatin1(),
                                                          QByteArray::AbortOnBase64DecodingErrors);
            if (!decoded)
                return makeError(QStringLiteral("content is not valid base64"));
            request->content = *decoded;
        } else {
            request->content = content.toString().toUtf8();
        }
        if (request->content.size() > kMaxFileBytes)
            return makeError(QStringLiteral("content has more than 16 MiB"));
        return request;
    };
    tool.resolve = pathResolver(sandboxes);
    tool.run = [sandboxes](const McpCall& call) {
        if (auto same = checkStillResolves(*sandboxes, call.request, QStringLiteral("written"));
            !same)
            return McpToolResult::failure(same.error().message);
        if (auto workspace = sandboxes->workspace(call.request.sandbox); !workspace)
            return McpToolResult::failure(workspace.error().message);
        else if (auto checkpoint = checkpointBeforeApproved(*workspace.value(), call); !checkpoint)
            return McpToolResult::failure(checkpoint.error().message);
        auto client = sftp(*sandboxes, call.request.sandbox);
        if (!client)
            return McpToolResult::failure(client.error().message);
        QTemporaryDir folder;
        const QString local = folder.filePath(QStringLiteral("file"));
        QFile file(local);
        if (!file.open(QIODevice::WriteOnly) ||
            file.write(call.request.content) != call.request.content.size())
            return McpToolResult::failure(
                QStringLiteral("cannot stage the file on the host: %1").arg(file.errorString()));
        file.close();
        if (auto copied = client.value()->upload(local, call.request.path.toUtf8()); !copied)
            return McpToolResult::failure(copied.error().message);
        McpToolResult result;
        result.structured = {{QStringLiteral("path"), call.request.path},
                             {QStringLiteral("size"), call.request.content.size()}};
        return result;
    };
    return tool;
}

McpTool listFilesTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("list_files");
    tool.title = QStringLiteral("List a folder of a workspace");
    tool.description =
        QStringLiteral("Lists a folder of a running workspace (default /root), without . and ..");
    tool.kind = ActionKind::List;
    tool.inputSchema =
        objectSchema({{QStringLiteral("workspace"), workspaceProperty()},
                      {QStringLiteral("path"),
                       stringSchema(QStringLiteral("Absolute guest path; default /root."))}},
                     {QStringLiteral("workspace")});
    const QJsonObject entry = objectSchema(
        {{QStringLiteral("name"), stringSchema(QStringLiteral("File name."))},
         {QStringLiteral("type"),
          enumSchema(QStringLiteral("Entry type (symlinks are not followed)."),
                     {QStringLiteral("file"), QStringLiteral("directory"),
                      QStringLiteral("symlink"), QStringLiteral("special"),
                      QStringLiteral("unknown")})},
         {QStringLiteral("size"), integerSchema(QStringLiteral("Bytes."), 0)},
         {QStringLiteral("mode"), stringSchema(QStringLiteral("Permissions in octal, e.g. 0644."))},
         {QStringLiteral("modified"), stringSchema(QStringLiteral("UTC, ISO 8601."))}},
        {QStringLiteral("name"), QStringLiteral("type"), QStringLiteral("size")});
    tool.outputSchema = objectSchema(
        {{QStringLiteral("path"), stringSchema(QStringLiteral("The folder."))},
         {QStringLiteral("entries"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                 {QStringLiteral("items"), entry}}}},
        {QStringLiteral("path"), QStringLiteral("entries")});
    tool.prepare = [](const QJsonObject& json) {
        return fileRequest(json, ActionKind::List, QStringLiteral("/root"));
    };
    tool.resolve = pathResolver(sandboxes);
    tool.run = [sandboxes](const McpCall& call) {
        if (auto same = checkStillResolves(*sandboxes, call.request, QStringLiteral("listed"));
            !same)
            return McpToolResult::failure(same.error().message);
        auto client = sftp(*sandboxes, call.request.sandbox);
        if (!client)
            return McpToolResult::failure(client.error().message);
        auto entries = client.value()->listDirectory(call.request.path.toUtf8());
        if (!entries)
            return McpToolResult::failure(entries.error().message);
        QJsonArray list;
        for (const SftpEntry& e : entries.value())
            list.append(
                QJsonObject{{QStringLiteral("name"), QString::fromUtf8(e.name)},
                            {QStringLiteral("type"), typeName(e.type)},
                            {QStringLiteral("size"), e.size},
                            {QStringLiteral("mode"),
                             QStringLiteral("0%1").arg(e.mode & 07777, 3, 8, QLatin1Char('0'))},
                            {QStringLiteral("modified"), e.mtime.toString(Qt::ISODate)}});
        McpToolResult result;
        result.structured = {{QStringLiteral("path"), call.request.path},
                             {QStringLiteral("entries"), list}};
        return result;
    };
    return tool;
}

} // namespace

QList<McpTool> mcpFileTools(std::shared_ptr<McpSandboxes> sandboxes)
{
    return {readFileTool(sandboxes), writeFileTool(sandboxes), listFilesTool(sandboxes)};
}

} // namespace sbw
