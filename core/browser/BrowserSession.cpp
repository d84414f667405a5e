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

struct BrowserSession::Endpoint
{
    std::shared_ptr<GuestSession> guest;
    int fd = -1;
    QByteArray path;
};

BrowserSession::BrowserSession(std::shared_ptr<Workspace> workspace, std::chrono::seconds readyWait, QObject* parent)
    : QObject(parent), m_workspace(std::move(workspace)), m_readyWait(readyWait)
{}

BrowserSession::~BrowserSession()
{
    m_waiting.clear();
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
            return Endpoint{guest.value(), fd.value(), endpoint.value().path};
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
    m_tunnel = new CdpTunnel(endpoint.fd, endpoint.path, this);
    m_client = new CdpClient(this);
    connect(m_tunnel, &CdpTunnel::closed, this, [this](const QString& reason) { close(reason); });
    connect(m_client, &CdpClient::closed, this, [this](const QString& reason) { close(reason); });
    connect(m_client, &CdpClient::opened, this, &BrowserSession::attach);
    connect(m_client, &CdpClient::event, this, [this](const QString& method, const QJsonObject& params, const QString& sessionId) {
        if (!m_sessionId.isEmpty() && sessionId == m_sessionId)
            Q_EMIT pageEvent(method, params);
    });
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
    m_client->send(QStringLiteral("Target.attachToTarget"), params, {}, [this](Expected<QJsonObject> attached) {
        if (!attached)
            return finishStart(attached.error());
        becomeReady(attached.value().value(QStringLiteral("sessionId")).toString());
    });
}

/// Enables the page's events and sends downloads to the guest's download folder.
void BrowserSession::becomeReady(const QString& sessionId)
{
    m_sessionId = sessionId;
    const QJsonObject downloads{{QStringLiteral("behavior"), QStringLiteral("allow")},
                                {QStringLiteral("downloadPath"), QString::fromLatin1(browser_launch::kDownloadDir)}};
    m_client->send(QStringLiteral("Browser.setDownloadBehavior"), downloads, {}, [](Expected<QJsonObject>) {});
    m_client->send(QStringLiteral("Page.enable"), {}, m_sessionId, [this](Expected<QJsonObject> enabled) {
        if (!enabled)
            return finishStart(enabled.error());
        finishStart({});
    });
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
    const bool wasReady = m_state == State::Ready;
    if (m_client)
        m_client->deleteLater();
    if (m_tunnel)
        m_tunnel->deleteLater();
    m_client = nullptr;
    m_tunnel = nullptr;
    m_guest.reset();
    m_sessionId.clear();
    setState(State::Stopped);
    if (wasReady)
        Q_EMIT lost(reason);
    for (const Done& done : std::exchange(m_waiting, {}))
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
