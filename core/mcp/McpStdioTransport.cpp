#include "mcp/McpStdioTransport.h"

#include "base/WriteAll.h"
#include "mcp/McpJsonRpc.h"
#include "mcp/McpServer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace sbw {

McpStdioTransport::McpStdioTransport(McpServer* server, int inFd, int outFd, QObject* parent)
    : QObject(parent), m_server(server), m_inFd(inFd), m_outFd(outFd)
{
}

McpStdioTransport::~McpStdioTransport()
{
    if (m_reader.joinable()) {
        const char stop = 1;
        (void)::write(m_wake[1], &stop, 1);
        m_reader.join();
    }
    for (int fd : m_wake)
        if (fd >= 0)
            ::close(fd);
    if (!m_session.isEmpty())
        m_server->closeSession(m_session, QStringLiteral("the workbench's MCP server stopped"));
}

void McpStdioTransport::start()
{
    m_session = m_server->openSession(QStringLiteral("stdio"));
    if (::pipe2(m_wake, O_CLOEXEC) != 0) {
        onEnd();
        return;
    }
    m_reader = std::thread([this] { readLoop(); });
}

void McpStdioTransport::readLoop()
{
    QByteArray pending;
    char buffer[65536];
    for (;;) {
        pollfd fds[2] = {{m_inFd, POLLIN, 0}, {m_wake[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[1].revents)
            return; // the transport is being destroyed
        const ssize_t n = ::read(m_inFd, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        pending.append(buffer, n);
        qsizetype newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
            const QByteArray line = pending.left(newline);
            pending.remove(0, newline + 1);
            QMetaObject::invokeMethod(this, [this, line] { onLine(line); }, Qt::QueuedConnection);
        }
    }
    QMetaObject::invokeMethod(this, [this] { onEnd(); }, Qt::QueuedConnection);
}

void McpStdioTransport::onLine(const QByteArray& line)
{
    if (line.trimmed().isEmpty() || m_session.isEmpty())
        return;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError) {
        write(mcp::errorMessage(QJsonValue::Null, mcp::kParseError, error.errorString()));
        return;
    }
    const QJsonValue message = document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
    QPointer<McpStdioTransport> self(this);
    m_server->handle(m_session, message, [self](const QJsonObject& answer) {
        if (self)
            self->write(answer);
    });
}

void McpStdioTransport::onEnd()
{
    if (!m_session.isEmpty()) {
        m_server->closeSession(m_session, QStringLiteral("it closed its input (stdin)"));
        m_session.clear();
    }
    Q_EMIT finished();
}

void McpStdioTransport::write(const QJsonObject& message)
{
    // An answer the client no longer reads (its end of the pipe closed) is dropped.
    writeAll(m_outFd, QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

} // namespace sbw
