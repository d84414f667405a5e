#include "browser/CdpClient.h"

#include <QJsonDocument>
#include <QNetworkRequest>
#include <QWebSocket>

namespace sbw {

CdpClient::CdpClient(QObject* parent) : QObject(parent), m_socket(new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this))
{
    // Screenshots travel as base64 in one message: a 1280×800 PNG of a busy page is a few MB.
    m_socket->setMaxAllowedIncomingMessageSize(64 * 1024 * 1024);
    connect(m_socket, &QWebSocket::connected, this, [this] {
        m_open = true;
        Q_EMIT opened();
    });
    connect(m_socket, &QWebSocket::disconnected, this, [this] {
        const QString reason = m_socket->closeReason().isEmpty()
                                   ? QStringLiteral("the DevTools connection closed")
                                   : QStringLiteral("the DevTools connection closed: %1").arg(m_socket->closeReason());
        m_open = false;
        failAll(reason);
        Q_EMIT closed(reason);
    });
    connect(m_socket, &QWebSocket::textMessageReceived, this, &CdpClient::receive);
    m_deadlines.setInterval(1000);
    connect(&m_deadlines, &QTimer::timeout, this, &CdpClient::expire);
}

CdpClient::~CdpClient()
{
    m_socket->disconnect(this);
}

void CdpClient::open(const QUrl& url, const QList<std::pair<QByteArray, QByteArray>>& headers)
{
    QNetworkRequest request(url);
    for (const auto& [name, value] : headers)
        request.setRawHeader(name, value);
    m_socket->open(request);
}

void CdpClient::close()
{
    m_socket->close();
}

void CdpClient::abandon(const QString& reason)
{
    m_socket->disconnect(this);
    m_open = false;
    m_deadlines.stop();
    const auto pending = std::exchange(m_pending, {});
    m_socket->abort();
    for (const Pending& call : pending)
        call.reply(makeError(reason));
}

void CdpClient::send(const QString& method, const QJsonObject& params, const QString& sessionId, Reply reply)
{
    if (!m_open) {
        reply(makeError(QStringLiteral("%1: the DevTools connection is not open").arg(method)));
        return;
    }
    const qint64 id = m_nextId++;
    QJsonObject message{{QStringLiteral("id"), id}, {QStringLiteral("method"), method}, {QStringLiteral("params"), params}};
    if (!sessionId.isEmpty())
        message.insert(QStringLiteral("sessionId"), sessionId);
    m_pending.insert(id, Pending{method, std::move(reply), std::chrono::steady_clock::now() + kCommandTimeout});
    if (!m_deadlines.isActive())
        m_deadlines.start();
    m_socket->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void CdpClient::receive(const QString& text)
{
    const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
    const QString sessionId = message.value(QStringLiteral("sessionId")).toString();
    if (!message.contains(QStringLiteral("id"))) {
        Q_EMIT event(message.value(QStringLiteral("method")).toString(),
                     message.value(QStringLiteral("params")).toObject(), sessionId);
        return;
    }
    const auto found = m_pending.find(message.value(QStringLiteral("id")).toInteger());
    if (found == m_pending.end())
        return;
    Pending pending = std::move(found.value());
    m_pending.erase(found);
    if (message.contains(QStringLiteral("error"))) {
        const QJsonObject error = message.value(QStringLiteral("error")).toObject();
        // One arg() call: the browser's message may hold "%2F" and the like, which a second
        // arg() would take for a placeholder.
        pending.reply(makeError(QStringLiteral("%1: %2 (%3)")
                                    .arg(pending.method, error.value(QStringLiteral("message")).toString(),
                                         QString::number(error.value(QStringLiteral("code")).toInteger()))));
        return;
    }
    pending.reply(message.value(QStringLiteral("result")).toObject());
}

void CdpClient::expire()
{
    const auto now = std::chrono::steady_clock::now();
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->deadline > now) {
            ++it;
            continue;
        }
        Pending pending = std::move(it.value());
        it = m_pending.erase(it);
        pending.reply(makeError(QStringLiteral("%1 timed out after %2 s").arg(pending.method).arg(kCommandTimeout.count())));
    }
    if (m_pending.isEmpty())
        m_deadlines.stop();
}

void CdpClient::failAll(const QString& reason)
{
    const auto pending = std::exchange(m_pending, {});
    for (const Pending& call : pending)
        call.reply(makeError(QStringLiteral("%1: %2").arg(call.method, reason)));
}

} // namespace sbw
