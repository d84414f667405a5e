#pragma once

#include <QObject>
#include <QString>

#include <thread>

namespace sbw {

class McpServer;

/// MCP's stdio transport for an McpServer: one session; newline-delimited JSON-RPC messages
/// are read from `inFd` (a reader thread, so the server's thread never blocks) and the
/// answers written to `outFd`, one line each. Nothing else may write to `outFd`. A line that
/// is not JSON is answered with a parse error. End of input ends the session and emits
/// finished().
class McpStdioTransport : public QObject
{
    Q_OBJECT

public:
    McpStdioTransport(McpServer* server, int inFd, int outFd, QObject* parent = nullptr);
    ~McpStdioTransport() override;

    /// Opens the session and starts reading.
    void start();

Q_SIGNALS:
    /// The input ended (the client closed it) or could not be read.
    void finished();

private:
    void readLoop();
    void onLine(const QByteArray& line);
    void onEnd();
    void write(const QJsonObject& message);

    McpServer* m_server;
    int m_inFd;
    int m_outFd;
    int m_wake[2] = {-1, -1}; ///< pipe that tells the reader thread to stop
    QString m_session;
    std::thread m_reader;
};

} // namespace sbw
