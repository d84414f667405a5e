#pragma once

#include "base/Expected.h"
#include "browser/CdpClient.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <chrono>
#include <functional>
#include <memory>

namespace sbw {

class CdpTunnel;
class GuestSession;
class Workspace;

/// One host program's connection to a workspace's browser (browser_launch): it starts the
/// browser in the guest when none runs, reaches its DevTools port through the workspace's
/// SSH session (GuestSession::connectForward(), CdpTunnel) and attaches to its page with a
/// flat CDP session. The browser and its page live in the guest: the window's Browser tab and
/// an MCP server each hold their own BrowserSession to the same page, and both see what the
/// other does.
///
/// Lives on the thread that made it (it needs that thread's event loop); every callback and
/// signal arrives there.
class BrowserSession : public QObject
{
    Q_OBJECT
public:
    enum class State
    {
        Stopped,  ///< not connected (never started, or the connection ended)
        Starting, ///< starting the browser or connecting to it
        Ready,    ///< attached to the page: call() goes straight through
    };
    using Done = std::function<void(Expected<void>)>;

    /// `readyWait`: how long starting may wait for a starting guest.
    BrowserSession(std::shared_ptr<Workspace> workspace, std::chrono::seconds readyWait,
                   QObject* parent = nullptr);
    ~BrowserSession() override;

    QString workspaceName() const;
    std::shared_ptr<Workspace> workspace() const { return m_workspace; }
    State state() const { return m_state; }
    /// How often the page went away (crashed, closed) under this session, and why it last did:
    /// a step that sees the count change fails with that reason.
    int pageLosses() const { return m_pageLosses; }
    QString lastPageLoss() const { return m_lastPageLoss; }

    /// Connects (starting the guest's browser first when none runs) unless ready; `done` gets
    /// the outcome. Errors: the image has no browser, the guest is not running, the browser
    /// did not start within 120 s, the DevTools connection failed.
    void ensureReady(Done done);
    /// Sends a CDP command to the page (connecting first when needed).
    void call(const QString& method, const QJsonObject& params, CdpClient::Reply reply);
    /// Ends the connection (the guest's browser keeps running): commands in flight and callers
    /// waiting for ensureReady() get `reason` as their error at once.
    void close(const QString& reason = QStringLiteral("closed"));

Q_SIGNALS:
    void stateChanged(sbw::BrowserSession::State state);
    /// An event of the page's session ("Page.screencastFrame", "Page.loadEventFired", …).
    void pageEvent(const QString& method, const QJsonObject& params);
    /// The connection ended after it was ready (the browser or the guest went away).
    void lost(const QString& reason);

private:
    struct Endpoint;
    void connectTo(const Endpoint& endpoint);
    void attach();
    void attachTo(const QString& targetId);
    void becomeReady(const QString& sessionId);
    void replaceCrashedPage();
    void finishStart(Expected<void> result);
    void receive(const QString& method, const QJsonObject& params, const QString& sessionId);
    /// The page went away under us (crashed, closed): ends the connection with `reason`, which
    /// the next call() gets when no call in flight did.
    void pageGone(const QString& reason);
    void end(const QString& reason, bool tellNextCall);
    void setState(State state);

    std::shared_ptr<Workspace> m_workspace;
    std::chrono::seconds m_readyWait;
    State m_state = State::Stopped;
    std::shared_ptr<GuestSession> m_guest; ///< keeps the SSH session of the tunnel open
    QPointer<CdpTunnel> m_tunnel;
    QPointer<CdpClient> m_client;
    QString m_sessionId; ///< the page's flat CDP session
    QString m_targetId;  ///< the page's target
    bool m_pageCrashed = false; ///< starting: the page being attached to has crashed
    bool m_inspecting = false; ///< starting: Inspector.enable has not answered yet
    bool m_replacedPage = false; ///< starting: a crashed page was replaced once already
    QString m_unreported; ///< why the page went away, for the next call() when nobody heard it
    int m_pageLosses = 0;
    QString m_lastPageLoss;
    QList<Done> m_waiting;
};

} // namespace sbw
