#pragma once

#include <QByteArray>
#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace sbw {

class McpHttpTransport;
class McpServer;

/// The Agents dock: the MCP server's HTTP endpoint (start and stop, port, the bearer token with
/// a Copy button and a client configuration to paste), and the connected clients (name,
/// version, transport, session, last call) with Disconnect, which ends the selected session.
///
/// serverAction() is the checkable "MCP Server" action the window's menu shows; the port is
/// kept in QSettings ("mcp/port", default kDefaultPort).
class AgentsPane : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kDefaultPort = 8765;

    /// `server` and `transport` are not owned; `token` is the transport's bearer token.
    AgentsPane(McpServer* server, McpHttpTransport* transport, QByteArray token, QWidget* parent = nullptr);

    QAction* serverAction() const { return m_serverAction; }
    QTableWidget* clientTable() const { return m_clients; }
    QPushButton* disconnectButton() const { return m_disconnect; }
    QSpinBox* portBox() const { return m_port; }
    /// The client configuration shown (JSON for MCP clients' "mcpServers").
    QString clientSnippet() const;

    /// Starts (true) or stops the HTTP endpoint on the port of portBox(); a failure to listen
    /// shows in the status line.
    void setServing(bool on);

private:
    void refreshClients();
    void refreshServer();

    McpServer* m_server;
    McpHttpTransport* m_transport;
    QByteArray m_token;
    QAction* m_serverAction;
    QSpinBox* m_port;
    QLabel* m_status;
    QLineEdit* m_tokenEdit;
    QPlainTextEdit* m_snippet;
    QTableWidget* m_clients;
    QPushButton* m_disconnect;
};

} // namespace sbw
