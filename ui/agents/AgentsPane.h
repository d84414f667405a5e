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

/// The Agents dock: the MCP server's HTTP endpoint (start and stop, port, the bearer token,
/// masked, with a Copy button, and a client configuration to paste, which shows the token as
/// "<token>" and whose Copy button gives it whole), and the connected clients (name, version,
/// transport, session, last call) with Disconnect, which ends the selected session.
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

    /// About 56 characters wide: a dock beside the panes that still fits a 1280-pixel screen.
    QSize sizeHint() const override;

    QAction* serverAction() const { return m_serverAction; }
    QTableWidget* clientTable() const { return m_clients; }
    QPushButton* disconnectButton() const { return m_disconnect; }
    QPushButton* startButton() const { return m_start; }
    QLabel* statusLabel() const { return m_status; }
    QSpinBox* portBox() const { return m_port; }
    /// The client configuration (JSON for MCP clients' "mcpServers") with the bearer token:
    /// what the snippet's Copy button puts on the clipboard.
    QString clientSnippet() const;
    /// The same as shown in the pane: the token replaced by "<token>".
    QString shownSnippet() const;
    QPlainTextEdit* snippetView() const { return m_snippet; }
    QPushButton* copySnippetButton() const { return m_copySnippet; }

    /// Starts (true) or stops the HTTP endpoint on the port of portBox(); a failure to listen
    /// shows in the status line.
    void setServing(bool on);

private:
    void refreshClients();
    void refreshServer();
    QString snippet(const QString& token) const;

    McpServer* m_server;
    McpHttpTransport* m_transport;
    QByteArray m_token;
    QAction* m_serverAction;
    QSpinBox* m_port;
    QLabel* m_status;
    QLineEdit* m_tokenEdit;
    QPlainTextEdit* m_snippet;
    QPushButton* m_copySnippet;
    QTableWidget* m_clients;
    QPushButton* m_disconnect;
    QPushButton* m_start; ///< Start or Stop, as the endpoint is
};

} // namespace sbw
