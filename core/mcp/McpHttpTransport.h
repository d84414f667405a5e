#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QObject>

class QHttpServerRequest;
class QTcpSocket;

namespace sbw {

class McpServer;

/// MCP's Streamable HTTP transport (revision 2025-06-18) for an McpServer, on 127.0.0.1 only:
/// POST /mcp carries one JSON-RPC message and is answered with one JSON response
/// (application/json), or, when notifications belong to the request (progress of a tools/call
/// that asked for it) and the client accepts text/event-stream, with an SSE stream of those
/// notifications and then the response, which ends it; 202 for notifications. No stream of the
/// server's own is offered (GET is 405). DELETE /mcp ends the session.
///
/// Every request passes checkMcpHttpAccess() first (Host and Origin against DNS rebinding:
/// 403; bearer token: 401). The initialize request opens a session whose id comes back in
/// Mcp-Session-Id; later requests must carry it (missing: 400, unknown or ended: 404). A
/// MCP-Protocol-Version header naming a revision the server does not speak is refused (400).
/// A tools/call that waits for approval keeps its HTTP request open until the gate decides.
class McpHttpTransport : public QObject
{
    Q_OBJECT

public:
    /// `server` is not owned; `token` is the bearer token clients must send.
    McpHttpTransport(McpServer* server, QByteArray token, QObject* parent = nullptr);
    ~McpHttpTransport() override;

    /// Listens on 127.0.0.1:`port` (0: any free port). Returns the port. Errors: the port is
    /// taken or not allowed.
    Expected<quint16> listen(quint16 port);
    /// Stops listening and ends this transport's sessions. (Destroying the transport only stops
    /// listening: the server may be gone already.)
    void stop();
    quint16 port() const { return m_port; }
    bool isListening() const { return m_port != 0; }

private:
    class Listener;
    friend class Listener;

    void handle(const QHttpServerRequest& request, QTcpSocket* socket);
    void post(const QHttpServerRequest& request, QTcpSocket* socket);

    McpServer* m_server;
    QByteArray m_token;
    std::unique_ptr<Listener> m_http;
    quint16 m_port = 0;
};

} // namespace sbw
