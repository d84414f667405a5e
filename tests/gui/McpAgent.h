#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>

namespace sbw {
class MainWindow;
}

namespace sbw::test {

/// An agent: tests/mcp/client.mjs (the official MCP TypeScript SDK) calling one tool, its JSON
/// lines collected as they come (the first is the server's info, the second the tool's result).
/// Needs SBW_MCP_CLIENT_DIR and `npm ci --prefix tests/mcp`.
class McpAgent
{
public:
    /// `server`: the client configuration (startAgentsServer()).
    McpAgent(const QJsonObject& server, const QString& tool, const QJsonObject& arguments);
    ~McpAgent();
    McpAgent(const McpAgent&) = delete;
    McpAgent& operator=(const McpAgent&) = delete;

    bool connected() const { return !m_lines.isEmpty(); }
    bool answered() const { return m_lines.size() >= 2; }
    QJsonObject result() const { return m_lines.value(1); }
    bool exitedCleanly() const { return m_node.state() == QProcess::NotRunning && m_node.exitCode() == 0; }

private:
    QProcess m_node;
    QByteArray m_out;
    QList<QJsonObject> m_lines;
};

/// The text of a tool result's first content item.
QString mcpResultText(const QJsonObject& result);

/// Whether the SDK the agent needs is installed (`npm ci --prefix tests/mcp`).
bool mcpClientInstalled();

/// What a person does in `window` to let an agent in: opens the Agents dock, starts the server
/// on a free port, copies the client configuration; returns it as the client script reads it
/// ({"transport": "http", "url", "token"}), or an empty object when a step failed.
QJsonObject startAgentsServer(MainWindow& window);

} // namespace sbw::test
