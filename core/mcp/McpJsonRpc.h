#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace sbw::mcp {

/// JSON-RPC 2.0 error codes the MCP server answers with.
enum ErrorCode
{
    kParseError = -32700,     ///< the message is not JSON
    kInvalidRequest = -32600, ///< not a JSON-RPC 2.0 request (also: batches, not initialized)
    kMethodNotFound = -32601,
    kInvalidParams = -32602,  ///< missing or wrong parameters, unknown tool
    kInternalError = -32603,
    kResourceNotFound = -32002, ///< resources/read of a URI the server does not offer (MCP)
};

/// MCP protocol revisions the server speaks, newest first; the first is offered to clients
/// that ask for one it does not know.
const QStringList& supportedProtocolVersions();
/// The revision to answer an initialize request with: `requested` when supported, else the
/// newest one (the client then decides whether it can go on).
QString negotiateProtocolVersion(const QString& requested);

/// {"jsonrpc":"2.0","id":ID,"result":RESULT}
QJsonObject resultMessage(const QJsonValue& id, const QJsonObject& result);
/// {"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE}}; id null when unknown.
QJsonObject errorMessage(const QJsonValue& id, int code, const QString& message);
/// The same with the error's `data` member.
QJsonObject errorMessage(const QJsonValue& id, int code, const QString& message, const QJsonObject& data);

/// A request has a method and an id; a notification a method and no id. Anything else
/// (responses, malformed messages) is neither.
bool isRequest(const QJsonValue& message);
bool isNotification(const QJsonValue& message);

} // namespace sbw::mcp
