#pragma once

#include "base/Expected.h"

#include <QByteArray>

#include <optional>

namespace sbw {

/// Why an HTTP request to the MCP endpoint is refused: the status and a one-line body.
struct McpHttpRefusal
{
    int status = 403;
    QByteArray message;
};

/// The checks every request to the MCP endpoint passes before it is read, in this order:
/// - Host (DNS rebinding): only localhost, 127.0.0.1 or [::1], with any port → else 403;
/// - Origin, when sent (browsers): only http(s)://localhost, 127.0.0.1 or [::1], any port
///   → else 403;
/// - Authorization: exactly "Bearer TOKEN" (compared in constant time) → else 401.
/// Header values are as received; empty means the header was absent.
std::optional<McpHttpRefusal> checkMcpHttpAccess(const QByteArray& host, const QByteArray& origin,
                                                 const QByteArray& authorization, const QByteArray& token);

/// The per-install bearer token of the HTTP endpoint: 64 hex digits in `path` (by default
/// dataDir()/mcp-token), created with mode 0600 on first use. Errors: the file is too short,
/// or cannot be read or made (a sentence naming the file).
Expected<QByteArray> loadOrCreateMcpToken(const QString& path);
QString defaultMcpTokenPath(); ///< dataDir()/mcp-token

} // namespace sbw
