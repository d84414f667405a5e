#include "browser/BrowserSession.h"

#include "base/Async.h"
#include "browser/BrowserLaunch.h"
#include "browser/CdpTunnel.h"
#include "guest/GuestSession.h"
#include "network/GuestEgress.h"
#include "workspace/Workspace.h"

#include <QJsonArray>

#include <unistd.h>

namespace sbw {

namespace {

/// The direct-tcpip socket from the worker until a CdpTunnel takes it; closed when nobody does
/// (the session was destroyed while it started: runThen() then drops the result unseen).
class OwnedFd
{
public:
    explicit OwnedFd(int fd) : m_fd(fd) {}
    ~OwnedFd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    OwnedFd(const OwnedFd&) = delete;
    OwnedFd& operator=(const OwnedFd&) = delete;
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

/// What the page's loss is called when the browser says only that it crashed: a renderer
/// killed by the kernel's OOM killer is the usual cause in a small guest.
const QString kPageCrashed = QStringLiteral("the page crashed (out of memory?)");

} // namespace

struct BrowserSession::Endpoint
{
    std::shared_ptr<GuestSession> guest;
    std::shared_ptr<OwnedFd> fd;
    QByteArray path;
};

BrowserSession::BrowserSession(std::shared_ptr<Workspace> workspace, std::chrono::seconds readyWait, QObject* parent)
    : QObject(parent), m_workspace(std::move(workspace)), m_readyWait(readyWait)
{}

BrowserSession::~BrowserSession()
{
    m_waiting.clear();
    if (m_client)
        m_client->disconnect(this);
    delete m_client;
    delete m_tunnel;
}

QString BrowserSession::workspaceName() const
{
    return m_workspace->name();
}

void BrowserSession::ensureReady(Done done)
{
    if (m_state == State::Ready)
        return done({});
    m_waiting.append(std::move(done));
    if (m_state == State::Starting)
        return;
    setState(State::Starting);
    m_unreported.clear();
    m_replacedPage = false;
    const std::shared_ptr<Workspace> workspace = m_workspace;
    const auto deadline = std::chrono::steady_clock::now() + m_readyWait;
    runThen(
        this,
        [workspace, deadline]() -> Expected<Endpoint> {
            const bool allowlist = workspace->record().settings.network == WorkspaceNetwork::Allowlist;
            ExecRequest request;
            request.command = browser_launch::ensureRunningCommand(allowlist ? guest_egress::kGuestPort : 0);
            QByteArray out;
            QByteArray err;
            request.onStdout = [&](QByteArrayView bytes) { out += bytes; };
            request.onStderr = [&](QByteArrayView bytes) { err += bytes; };
            const Expected<ExecStatus> status = workspace->exec(request, deadline);
            if (!status)
                return status.error();
            if (status.value().exitStatus != 0)
                return makeError(QString::fromUtf8(err).trimmed().isEmpty()
                                     ? QStringLiteral("the browser did not start")
                                     : QString::fromUtf8(err).trimmed());
            const auto endpoint = browser_launch::parseEndpoint(out);
            if (!endpoint)
                return endpoint.error();
            auto guest = workspace->session(deadline);
            if (!guest)
                return guest.error();
            const Expected<int> fd = guest.value()->connectForward(endpoint.value().port);
            if (!fd)
                return fd.error();
            return Endpoint{guest.value(), std::make_shared<OwnedFd>(fd.value()), endpoint.value().path};
        },
        [this](Expected<Endpoint> endpoint) {
            if (!endpoint)
                return finishStart(endpoint.error());
            connectTo(endpoint.value());
        });
}

void BrowserSession::connectTo(const Endpoint& endpoint)
{
    m_guest = endpoint.guest;
    m_tunnel = new CdpTunnel(endpoint.fd->release(), endpoint.path, this);
    m_client = new CdpClient(this);
    connect(m_tunnel, &CdpTunnel::closed, this, [this](const QString& reason) { close(reason); });
    connect(m_client, &CdpClient::closed, this, [this](const QString& reason) { close(reason); });
    connect(m_client, &CdpClient::opened, this, &BrowserSession::attach);
    connect(m_client, &CdpClient::event, this, &BrowserSession::receive);
    m_client->open(m_tunnel->url(), {{CdpTunnel::kTokenHeader, m_tunnel->token()}});
}

/// Attaches to the browser's first page, or opens one when it has none (a page closed by
/// script).
void BrowserSession::attach()
{
    m_client->send(QStringLiteral("Target.getTargets"), {}, {}, [this](Expected<QJsonObject> targets) {
        if (!targets)
            return finishStart(targets.error());
        for (const QJsonValue& target : targets.value().value(QStringLiteral("targetInfos")).toArray()) {
            if (target.toObject().value(QStringLiteral("type")).toString() == QLatin1String("page"))
                return attachTo(target.toObject().value(QStringLiteral("targetId")).toString());
        }
        m_client->send(QStringLiteral("Target.createTarget"), {{QStringLiteral("url"), QStringLiteral("about:blank")}}, {},
                       [this](Expected<QJsonObject> created) {
                           if (!created)
                               return finishStart(created.error());
                           attachTo(created.value().value(QStringLiteral("targetId")).toString());
                       });
    });
}

void BrowserSession::attachTo(const QString& targetId)
{
    const QJsonObject params{{QStringLiteral("targetId"), targetId}, {QStringLiteral("flatten"), true}};
    m_client->send(QStringLiteral("Target.attachToTarget"), params, {}, [this, targetId](Expected<QJsonObject> attached) {
        if (!attached)
            return finishStart(attached.error());
        m_targetId = targetId;
        becomeReady(attached.value().value(QStringLiteral("sessionId")).toString());
    });
}

/// Enables the page's events and sends downloads to the guest's download folder. A page
/// whose renderer is gone (it crashed before we came) answers Inspector.enable with
/// Inspector.targetCrashed first: it is replaced, since nothing it would run could answer.
void BrowserSession::becomeReady(const QString& sessionId)
{
    m_sessionId = sessionId;
    m_pageCrashed = false;
    m_inspecting = true;
    const QJsonObject downloads{{QStringLiteral("behavior"), QStringLiteral("allow")},
                                {QStringLiteral("downloadPath"), QString::fromLatin1(browser_launch::kDownloadDir)}};
    m_client->send(QStringLiteral("Browser.setDownloadBehavior"), downloads, {}, [](Expected<QJsonObject>) {});
    m_client->send(QStringLiteral("Inspector.enable"), {}, m_sessionId, [this](Expected<QJsonObject> inspecting) {
        m_inspecting = false;
        if (!inspecting)
            return finishStart(inspecting.error());
        if (m_pageCrashed)
            return replaceCrashedPage();
        m_client->send(QStringLiteral("Page.enable"), {}, m_sessionId, [this](Expected<QJsonObject> enabled) {
            if (!enabled)
                return finishStart(enabled.error());
            finishStart({});
        });
    });
}

/// Opens a blank page in place of the crashed one, closes that and attaches to the new one
/// (once per start: a page that crashes again at once is an error).
void BrowserSession::replaceCrashedPage()
{
    if (m_replacedPage)
        return finishStart(makeError(QStringLiteral("the browser's new page crashed too (out of memory?)")));
    m_replacedPage = true;
    const QString crashed = std::exchange(m_targetId, {});
    m_sessionId.clear(); // its detachment is no news
    m_client->send(QStringLiteral("Target.createTarget"), {{QStringLiteral("url"), QStringLiteral("about:blank")}}, {},
                   [this, crashed](Expected<QJsonObject> created) {
                       if (!created)
                           return finishStart(created.error());
                       m_client->send(QStringLiteral("Target.closeTarget"), {{QStringLiteral("targetId"), crashed}}, {},
                                      [](Expected<QJsonObject>) {});
                       attachTo(created.value().value(QStringLiteral("targetId")).toString());
                   });
}

void BrowserSession::receive(const QString& method, const QJsonObject& params, const QString& sessionId)
{
    // The browser's own events (no session): about targets, ours among them.
    if (method == QLatin1String("Target.detachedFromTarget")) {
        if (!m_sessionId.isEmpty() && params.value(QStringLiteral("sessionId")).toString() == m_sessionId)
            pageGone(QStringLiteral("the page was closed"));
        return;
    }
    if (method == QLatin1String("Target.targetCrashed")) {
        if (!m_targetId.isEmpty() && params.value(QStringLiteral("targetId")).toString() == m_targetId)
            pageGone(kPageCrashed);
        return;
    }
    if (m_sessionId.isEmpty() || sessionId != m_sessionId)
        return;
    if (method == QLatin1String("Inspector.targetCrashed"))
        return pageGone(kPageCrashed);
    Q_EMIT pageEvent(method, params);
}

void BrowserSession::pageGone(const QString& reason)
{
    if (m_state == State::Starting) {
        // Attaching: a page found crashed is replaced once Inspector.enable has answered; one
        // whose renderer dies after that (a renderer that cannot start) fails the start.
        if (reason == kPageCrashed && m_inspecting)
            m_pageCrashed = true;
        else
            finishStart(makeError(reason));
        return;
    }
    ++m_pageLosses;
    m_lastPageLoss = reason;
    end(reason, true);
}

void BrowserSession::finishStart(Expected<void> result)
{
    if (!result) {
        close(result.error().message);
    } else {
        setState(State::Ready);
    }
    for (const Done& done : std::exchange(m_waiting, {}))
        done(result);
}

void BrowserSession::call(const QString& method, const QJsonObject& params, CdpClient::Reply reply)
{
    // The page went away between calls: the next call says so (once), the one after reconnects.
    if (!m_unreported.isEmpty())
        return reply(makeError(std::exchange(m_unreported, {})));
    if (m_state == State::Ready)
        return m_client->send(method, params, m_sessionId, std::move(reply));
    ensureReady([this, method, params, reply = std::move(reply)](Expected<void> ready) mutable {
        if (!ready)
            return reply(ready.error());
        m_client->send(method, params, m_sessionId, std::move(reply));
    });
}

void BrowserSession::close(const QString& reason)
{
    end(reason, false);
}

void BrowserSession::end(const QString& reason, bool tellNextCall)
{
    const bool wasReady = m_state == State::Ready;
    CdpClient* client = m_client;
    if (m_tunnel)
        m_tunnel->deleteLater();
    m_client = nullptr;
    m_tunnel = nullptr;
    m_guest.reset();
    m_sessionId.clear();
    m_targetId.clear();
    setState(State::Stopped);
    const QList<Done> waiting = std::exchange(m_waiting, {});
    if (tellNextCall && waiting.isEmpty() && !(client && client->hasPending()))
        m_unreported = reason;
    if (wasReady)
        Q_EMIT lost(reason);
    // Last: these callbacks may call again, which starts a new connection.
    if (client) {
        client->disconnect(this);
        client->abandon(reason);
        client->deleteLater();
    }
    for (const Done& done : waiting)
        done(makeError(reason));
}

void BrowserSession::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace sbw
