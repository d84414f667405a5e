#pragma once

#include "base/Expected.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <functional>

class QWebSocket;

namespace sbw {

/// A client of the Chrome DevTools Protocol (CDP): JSON messages over one WebSocket, each
/// command `{id, method, params, sessionId}` answered by `{id, result}` or `{id, error}`,
/// events `{method, params, sessionId}` in between. With flat sessions (Target.attachToTarget
/// with flatten), the page's commands and events carry the page's sessionId on the same
/// connection. https://chromedevtools.github.io/devtools-protocol/
///
/// Lives on the thread that made it; callbacks and signals arrive there.
class CdpClient : public QObject
{
    Q_OBJECT
public:
    using Reply = std::function<void(Expected<QJsonObject>)>;

    /// How long a command may wait for its answer: a page load under TCG takes seconds, a
    /// stuck renderer must not hold a caller forever.
    static constexpr std::chrono::seconds kCommandTimeout{90};

    explicit CdpClient(QObject* parent = nullptr);
    ~CdpClient() override;

    /// Connects to `url`, sending `headers` with the upgrade request (CdpTunnel's token).
    /// opened() or closed() follows.
    void open(const QUrl& url, const QList<std::pair<QByteArray, QByteArray>>& headers);
    void close();
    /// Ends the connection without closed(): every command in flight gets `reason` as its error
    /// at once (the owner knows why it gives up: the page crashed), later sends fail.
    void abandon(const QString& reason);
    bool isOpen() const { return m_open; }
    /// Whether commands wait for their answers.
    bool hasPending() const { return !m_pending.isEmpty(); }

    /// Sends `method` with `params` (to the page session `sessionId`, or the browser when
    /// empty); `reply` gets the result object, or an error ("Page.navigate: Cannot navigate
    /// to invalid URL (-32000)", "… timed out after 90 s", "the DevTools connection closed").
    /// `reply` is called exactly once, on this object's thread, unless the client is destroyed.
    void send(const QString& method, const QJsonObject& params, const QString& sessionId, Reply reply);

Q_SIGNALS:
    void opened();
    /// The connection ended; every command in flight got an error. Emitted once per open().
    void closed(const QString& reason);
    void event(const QString& method, const QJsonObject& params, const QString& sessionId);

private:
    struct Pending
    {
        QString method;
        Reply reply;
        std::chrono::steady_clock::time_point deadline;
    };
    void receive(const QString& message);
    void expire();
    void failAll(const QString& reason);

    QWebSocket* m_socket;
    QTimer m_deadlines;
    QHash<qint64, Pending> m_pending;
    qint64 m_nextId = 1;
    bool m_open = false;
};

} // namespace sbw
