#include "mcp/McpHttpTransport.h"

#include "mcp/McpHttpAccess.h"
#include "mcp/McpJsonRpc.h"
#include "mcp/McpServer.h"

#include <QAbstractHttpServer>
#include <QHttpServerRequest>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QTcpSocket>
#include <memory>

namespace sbw {

namespace {

using Headers = QList<std::pair<QByteArray, QByteArray>>;

const char* reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    default:
        return "Error";
    }
}

/// Writes one complete HTTP/1.1 response on `socket`, if it is still connected. Responses are
/// written here rather than through QHttpServerResponder because a tools/call may be answered
/// long after its request (approval), when the client may have gone and its socket with it.
void respond(QTcpSocket* socket, int status, const QByteArray& contentType, const QByteArray& body,
             const Headers& headers = {})
{
    if (!socket || socket->state() != QAbstractSocket::ConnectedState)
        return;
    QByteArray head =
        "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    if (!contentType.isEmpty())
        head += "Content-Type: " + contentType + "\r\n";
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n";
    socket->write(head + body);
}

void respondText(QTcpSocket* socket, int status, const QByteArray& text,
                 const Headers& headers = {})
{
    respond(socket, status, "text/plain; charset=utf-8", text + '\n', headers);
}

void respondJson(QTcpSocket* socket, int status, const QJsonObject& message,
                 const Headers& headers = {})
{
    respond(socket, status, "application/json",
            QJsonDocument(message).toJson(QJsonDocument::Compact), headers);
}

/// One POST's answer: a JSON body, or, once a notification belongs to the request (progress),
/// an event stream (text/event-stream, chunked) that carries the notifications and then the
/// response, and ends (MCP Streamable HTTP lets a server answer a request either way).
class PostAnswer
{
public:
    PostAnswer(QTcpSocket* socket, bool canStream) : m_socket(socket), m_canStream(canStream) {}

    /// A notification of the request: starts the stream if need be. Dropped for a client that
    /// does not accept a stream.
    void notify(const QJsonObject& message)
    {
        if (!m_canStream)
            return;
        if (!m_streaming) {
            m_streaming = true;
            writeHead();
        }
        writeEvent(message);
    }

    /// The response: the last event of the stream, or the whole body with `headers` (a stream
    /// never starts before initialize's answer, the only one with headers of its own).
    void respond(const QJsonObject& message, const Headers& headers)
    {
        if (!m_streaming) {
            respondJson(m_socket.data(), 200, message, headers);
            return;
        }
        writeEvent(message);
        write("0\r\n\r\n");
    }

private:
    void writeHead()
    {
        write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
              "Transfer-Encoding: chunked\r\n\r\n");
    }

    void writeEvent(const QJsonObject& message)
    {
        const QByteArray event =
            "event: message\ndata: " + QJsonDocument(message).toJson(QJsonDocument::Compact) + "\n\n";
        write(QByteArray::number(event.size(), 16) + "\r\n" + event + "\r\n");
    }

    void write(const QByteArray& bytes)
    {
        if (m_socket && m_socket->state() == QAbstractSocket::ConnectedState)
            m_socket->write(bytes);
    }

    QPointer<QTcpSocket> m_socket;
    bool m_canStream;
    bool m_streaming = false;
};

} // namespace

/// Qt HttpServer's request parsing, with the socket handed to the transport.
class McpHttpTransport::Listener : public QAbstractHttpServer
{
public:
    explicit Listener(McpHttpTransport* transport) : m_transport(transport) {}

protected:
    bool handleRequest(const QHttpServerRequest& request, QTcpSocket* socket) override
    {
        if (request.url().path() != QLatin1String("/mcp"))
            return false;
        m_transport->handle(request, socket);
        return true;
    }
    void missingHandler(const QHttpServerRequest&, QTcpSocket* socket) override
    {
        respondText(socket, 404, "not found; the MCP endpoint is /mcp");
    }

private:
    McpHttpTransport* m_transport;
};

McpHttpTransport::McpHttpTransport(McpServer* server, QByteArray token, QObject* parent)
    : QObject(parent), m_server(server), m_token(std::move(token))
{}

McpHttpTransport::~McpHttpTransport() = default;

Expected<quint16> McpHttpTransport::listen(quint16 port)
{
    stop();
    m_http = std::make_unique<Listener>(this);
    const quint16 bound = m_http->listen(QHostAddress::LocalHost, port);
    if (bound == 0) {
        m_http.reset();
        return makeError(
            QStringLiteral("cannot listen on 127.0.0.1:%1 (the port may be in use)").arg(port));
    }
    m_port = bound;
    return bound;
}

void McpHttpTransport::stop()
{
    m_http.reset();
    m_port = 0;
    for (const McpClientInfo& client : m_server->clients())
        if (client.transport == QLatin1String("http"))
            m_server->closeSession(client.sessionId,
                                   QStringLiteral("the workbench stopped its HTTP server"));
}

void McpHttpTransport::handle(const QHttpServerRequest& request, QTcpSocket* socket)
{
    if (auto refused = checkMcpHttpAccess(request.value("Host"), request.value("Origin"),
                                          request.value("Authorization"), m_token)) {
        Headers headers;
        if (refused->status == 401)
            headers.append(std::pair<QByteArray, QByteArray>("WWW-Authenticate", "Bearer"));
        respondText(socket, refused->status, refused->message, headers);
        return;
    }
    const QByteArray version = request.value("MCP-Protocol-Version");
    if (!version.isEmpty() &&
        !mcp::supportedProtocolVersions().contains(QString::fromLatin1(version))) {
        respondText(socket, 400,
                    "unsupported MCP-Protocol-Version " + version + "; supported: " +
                        mcp::supportedProtocolVersions().join(QLatin1String(", ")).toLatin1());
        return;
    }
    switch (request.method()) {
    case QHttpServerRequest::Method::Post:
        post(request, socket);
        return;
    case QHttpServerRequest::Method::Delete: {
        const QString session = QString::fromLatin1(request.value("Mcp-Session-Id"));
        if (session.isEmpty()) {
            respondText(socket, 400, "Mcp-Session-Id is required");
        } else if (!m_server->hasSession(session)) {
            respondText(socket, 404, "no such session");
        } else {
            m_server->closeSession(session, QStringLiteral("it ended its session (HTTP DELETE)"));
            respondText(socket, 200, "session ended");
        }
        return;
    }
    default:
        respondText(socket, 405, "POST or DELETE only; this server offers no SSE stream",
                    {{"Allow", "POST, DELETE"}});
        return;
    }
}

void McpHttpTransport::post(const QHttpServerRequest& request, QTcpSocket* socket)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        respondJson(
            socket, 400,
            mcp::errorMessage(QJsonValue::Null, mcp::kParseError, parseError.errorString()));
        return;
    }
    if (!document.isObject()) {
        respondJson(
            socket, 400,
            mcp::errorMessage(
                QJsonValue::Null, mcp::kInvalidRequest,
                QStringLiteral("one JSON-RPC message per request; batches are not supported")));
        return;
    }
    const QJsonObject message = document.object();
    const bool initialize =
        message.value(QLatin1String("method")).toString() == QLatin1String("initialize");
    QString session = QString::fromLatin1(request.value("Mcp-Session-Id"));
    Headers headers;
    if (initialize && mcp::isRequest(message)) {
        session = m_server->openSession(QStringLiteral("http"));
        headers.append(std::pair<QByteArray, QByteArray>("Mcp-Session-Id", session.toLatin1()));
    } else if (session.isEmpty()) {
        respondJson(socket, 400,
                    mcp::errorMessage(
                        message.value(QLatin1String("id")), mcp::kInvalidRequest,
                        QStringLiteral("Mcp-Session-Id is required (send initialize first)")));
        return;
    } else if (!m_server->hasSession(session)) {
        respondJson(
            socket, 404,
            mcp::errorMessage(message.value(QLatin1String("id")), mcp::kInvalidRequest,
                              QStringLiteral("no such session (it ended); initialize again")));
        return;
    }
    if (!mcp::isRequest(message)) {
        m_server->handle(session, message, [](const QJsonObject&) {});
        respond(socket, 202, {}, {});
        return;
    }
    // The answer may come much later (a call waiting for approval); the client may be gone then.
    // A client whose connection closes before its answer has given up: its call is cancelled.
    QPointer<McpServer> server(m_server);
    auto watch = std::make_shared<QMetaObject::Connection>();
    *watch = connect(socket, &QAbstractSocket::disconnected, m_server,
                     [server, session, requestId = message.value(QLatin1String("id"))] {
                         server->abandonRequest(
                             session, requestId,
                             QStringLiteral("its HTTP connection closed before the answer"));
                     });
    auto answer = std::make_shared<PostAnswer>(socket, request.value("Accept").contains("text/event-stream"));
    m_server->handle(
        session, message,
        [answer, headers, initialize, session, server, watch](const QJsonObject& reply) {
            if (mcp::isNotification(reply)) {
                answer->notify(reply);
                return;
            }
            QObject::disconnect(*watch);
            const bool failed = reply.contains(QLatin1String("error"));
            if (initialize && failed && server)
                server->closeSession(session);
            answer->respond(reply, initialize && failed ? Headers{} : headers);
        });
}

} // namespace sbw
