#pragma once

#include <QStringList>

namespace sbw {

/// `sbw mcp [--policy FILE] [--connect URI]`: the MCP server on stdin/stdout until the client
/// closes stdin. `sbw serve --port N [--policy FILE] [--connect URI]`: the MCP server over
/// Streamable HTTP on http://127.0.0.1:N/mcp until interrupted; the bearer token is in
/// dataDir()/mcp-token. Both decide every tool call with makeHeadlessGate(). `arguments`
/// starts with the program name as messages show it ("sbw mcp"). Returns the exit status: 0,
/// 2 for usage errors, 125 when the server cannot start, among others when the policy file is
/// bad, unreadable or (given with --policy) missing: one line on stderr naming the file.
int mcpCommand(const QStringList& arguments);
int serveCommand(const QStringList& arguments);

} // namespace sbw
