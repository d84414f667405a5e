// What the MCP server adds to a command, and how fast the command log takes rows.
//
// One workspace (bench-mcp, 256 MiB, created, booted and deleted by the program) runs `true` N
// times (default 50) in each of three ways, interleaved so that a change of the machine's load
// touches all three alike:
//   core API     runWorkspaceCommand(), as `sbw ws exec` calls it, logged;
//   MCP in-proc  a tools/call `exec` message (JSON text) through McpServer::handle(): prepare,
//                PolicyGate (a policy whose rule allows exec `true`: auto-approved), the log
//                row, the server's worker thread, the answer back as JSON text;
//   MCP HTTP     the same message POSTed to McpHttpTransport on 127.0.0.1 by a
//                QNetworkAccessManager, which keeps its one connection alive.
// All three use the same Workspace object (one SSH session) and one fresh command log. Prints
// the medians in ms and each MCP median minus the core one (target: at most 20 ms).
//
// Then R actions (default 1000) are logged into a fresh command log, each a begin() and a
// finish() as a command's row gets them: rows per second.
//
//   bench_mcp [N] [R]      (run under `flock /tmp/sbw-guest.lock`)

#include "BenchStats.h"
#include "TestEnvironment.h"
#include "approval/PolicyGate.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "log/CommandLog.h"
#include "mcp/McpHttpTransport.h"
#include "mcp/McpServer.h"
#include "mcp/McpTools.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommand.h"
#include "workspace/WorkspaceCommandRunner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

namespace {

using sbw::test::median;

const QString kWorkspace = QStringLiteral("bench-mcp");
const QByteArray kToken = "bench-mcp-token";

/// ms that `step` took, or -1 when it failed.
double timeMs(const std::function<bool()>& step)
{
    QElapsedTimer timer;
    timer.start();
    const bool ok = step();
    return ok ? double(timer.nsecsElapsed()) / 1e6 : -1;
}

QJsonObject request(int id, const QString& method, const QJsonObject& params)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id},
            {QStringLiteral("method"), method},
            {QStringLiteral("params"), params}};
}

QJsonObject initializeParams()
{
    return {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
            {QStringLiteral("capabilities"), QJsonObject()},
            {QStringLiteral("clientInfo"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("bench")}, {QStringLiteral("version"), QStringLiteral("1")}}}};
}

QJsonObject execTrue()
{
    return {{QStringLiteral("name"), QStringLiteral("exec")},
            {QStringLiteral("arguments"),
             QJsonObject{{QStringLiteral("workspace"), kWorkspace}, {QStringLiteral("argv"), QJsonArray{QStringLiteral("true")}}}}};
}

/// True when `answer` is a tools/call result of a command that exited with 0; otherwise says why.
bool succeeded(const QJsonObject& answer)
{
    const QJsonObject result = answer.value(QLatin1String("result")).toObject();
    if (!result.value(QLatin1String("isError")).toBool() &&
        result.value(QLatin1String("structuredContent")).toObject().value(QLatin1String("exit_status")) == QJsonValue(0))
        return true;
    std::fprintf(stderr, "MCP exec failed: %s\n", QJsonDocument(answer).toJson(QJsonDocument::Compact).constData());
    return false;
}

/// One JSON-RPC message through McpServer::handle() as a transport passes it: parsed from its
/// text, the answer (which comes back on this thread's event loop) turned into text.
QJsonObject handle(sbw::McpServer& server, const QString& session, const QJsonObject& message)
{
    const QByteArray text = QJsonDocument(message).toJson(QJsonDocument::Compact);
    std::optional<QByteArray> answer;
    QEventLoop loop;
    server.handle(session, QJsonDocument::fromJson(text).object(), [&answer, &loop](const QJsonObject& reply) {
        answer = QJsonDocument(reply).toJson(QJsonDocument::Compact);
        loop.quit();
    });
    if (!answer)
        loop.exec();
    return QJsonDocument::fromJson(*answer).object();
}

/// An MCP client over Streamable HTTP on one kept-alive connection.
class HttpClient
{
public:
    explicit HttpClient(quint16 port) : m_url(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port)) {}

    /// Initializes a session. Errors are printed.
    bool connect()
    {
        QByteArray session;
        const QJsonObject answer = post(request(1, QStringLiteral("initialize"), initializeParams()), &session);
        if (session.isEmpty() || !answer.contains(QLatin1String("result"))) {
            std::fprintf(stderr, "HTTP initialize failed: %s\n", QJsonDocument(answer).toJson(QJsonDocument::Compact).constData());
            return false;
        }
        m_session = session;
        post({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), QStringLiteral("notifications/initialized")}});
        return true;
    }

    /// POSTs `message` and waits for the answer (empty for 202 or a failure).
    QJsonObject post(const QJsonObject& message, QByteArray* session = nullptr)
    {
        QNetworkRequest http{QUrl(m_url)};
        http.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        http.setRawHeader("Accept", "application/json, text/event-stream");
        http.setRawHeader("Authorization", "Bearer " + kToken);
        if (!m_session.isEmpty()) {
            http.setRawHeader("Mcp-Session-Id", m_session);
            http.setRawHeader("MCP-Protocol-Version", "2025-06-18");
        }
        QNetworkReply* reply = m_network.post(http, QJsonDocument(message).toJson(QJsonDocument::Compact));
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        if (session)
            *session = reply->rawHeader("Mcp-Session-Id");
        const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return answer;
    }

private:
    QString m_url;
    QNetworkAccessManager m_network;
    QByteArray m_session;
};

void benchExec(sbw::HypervisorConnection& connection, int repetitions)
{
    QTemporaryDir data;
    auto log = sbw::CommandLog::open(data.filePath(QStringLiteral("command-log.sqlite")));
    if (!log) {
        std::fprintf(stderr, "%s\n", qPrintable(log.error().message));
        return;
    }
    if (auto old = sbw::Workspace::open(connection, kWorkspace))
        old.value()->remove();
    sbw::WorkspaceSettings settings;
    settings.memoryMiB = 256;
    auto created = sbw::Workspace::create(connection, kWorkspace, settings);
    if (!created) {
        std::fprintf(stderr, "%s\n", qPrintable(created.error().message));
        return;
    }
    std::shared_ptr<sbw::Workspace> workspace = std::move(created.value());
    const auto removeWorkspace = [&workspace] {
        if (auto removed = workspace->remove(); !removed)
            std::fprintf(stderr, "%s\n", qPrintable(removed.error().message));
    };
    if (auto started = workspace->start(); !started) {
        std::fprintf(stderr, "%s\n", qPrintable(started.error().message));
        removeWorkspace();
        return;
    }

    sbw::Policy policy;
    policy.defaultRules = {sbw::PolicyRule{{sbw::ActionKind::Exec}, QStringLiteral("true"), sbw::PolicyDecision::Allow}};
    sbw::PolicyGate gate(policy, log.value());
    auto sandboxes = std::make_shared<sbw::McpSandboxes>(&connection);
    sandboxes->adopt(workspace);
    sbw::McpServer server(&gate, log.value());
    for (sbw::McpTool& tool : sbw::workbenchTools(sandboxes))
        server.addTool(std::move(tool));
    sbw::McpHttpTransport transport(&server, kToken);
    auto port = transport.listen(0);
    if (!port) {
        std::fprintf(stderr, "%s\n", qPrintable(port.error().message));
        removeWorkspace();
        return;
    }
    const QString session = server.openSession(QStringLiteral("bench"));
    handle(server, session, request(1, QStringLiteral("initialize"), initializeParams()));
    HttpClient http(port.value());

    const auto core = [&] {
        sbw::WorkspaceCommandOptions options;
        options.command = QStringLiteral("true");
        options.workdir = QStringLiteral("/root");
        options.shellCommand = sbw::workspaceShellCommand(options.command, options.workdir);
        options.timeout = std::chrono::seconds(60);
        options.readyDeadline = sbw::McpSandboxes::readyDeadline(workspace->connection());
        options.log = log.value();
        options.actor.kind = sbw::Actor::Kind::Cli;
        const sbw::WorkspaceCommandResult result = sbw::runWorkspaceCommand(*workspace, options);
        if (!result.error.isEmpty() || result.status.exitStatus != 0)
            std::fprintf(stderr, "core exec failed: %s\n", qPrintable(result.summary()));
        return result.error.isEmpty() && result.status.exitStatus == 0;
    };
    int id = 2;
    const auto inProcess = [&] { return succeeded(handle(server, session, request(id++, QStringLiteral("tools/call"), execTrue()))); };
    const auto overHttp = [&] { return succeeded(http.post(request(id++, QStringLiteral("tools/call"), execTrue()))); };

    // Untimed: the guest boots, the SSH session opens, the HTTP connection is made.
    if (!core() || !inProcess() || !http.connect() || !overHttp()) {
        removeWorkspace();
        return;
    }
    std::vector<double> coreMs, inProcessMs, httpMs;
    for (int i = 0; i < repetitions; ++i) {
        coreMs.push_back(timeMs(core));
        inProcessMs.push_back(timeMs(inProcess));
        httpMs.push_back(timeMs(overHttp));
        if (coreMs.back() < 0 || inProcessMs.back() < 0 || httpMs.back() < 0) {
            removeWorkspace();
            return;
        }
    }
    const double base = median(coreMs);
    std::printf("exec of `true` in one running workspace, median of %d each, auto-approved by policy, logged:\n",
                repetitions);
    std::printf("  core API (runWorkspaceCommand)                    %7.1f ms\n", base);
    std::printf("  MCP in-process (McpServer::handle, JSON text)     %7.1f ms   overhead %+6.1f ms\n",
                median(inProcessMs), median(inProcessMs) - base);
    std::printf("  MCP over HTTP (127.0.0.1, keep-alive connection)  %7.1f ms   overhead %+6.1f ms\n",
                median(httpMs), median(httpMs) - base);
    std::printf("  target: overhead <= 20 ms\n");
    std::fflush(stdout);
    transport.stop();
    removeWorkspace();
}

void benchLogRows(int rows)
{
    QTemporaryDir data;
    auto log = sbw::CommandLog::open(data.filePath(QStringLiteral("command-log.sqlite")));
    if (!log) {
        std::fprintf(stderr, "%s\n", qPrintable(log.error().message));
        return;
    }
    sbw::ActionStart start;
    start.sandbox = kWorkspace;
    start.actor = {sbw::Actor::Kind::Agent, QStringLiteral("bench")};
    start.command = QStringLiteral("true");
    start.workdir = QStringLiteral("/root");
    sbw::ActionEnd end;
    end.exitStatus = 0;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < rows; ++i) {
        auto id = log.value()->begin(start);
        if (!id || !log.value()->finish(id.value(), end)) {
            std::fprintf(stderr, "row %d could not be written\n", i);
            return;
        }
    }
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    std::printf("command log, fresh store: %d actions (begin + finish each) in %.2f s: %.0f rows/s\n", rows, seconds,
                rows / seconds);
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 50;
    const int rows = argc > 2 ? std::max(1, atoi(argv[2])) : 1000;
    sbw::HypervisorConnection connection(sbw::test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
        return 1;
    }
    std::printf("%s\n", qPrintable(sbw::HypervisorConnection::describe(connection.accelerator())));
    benchExec(connection, repetitions);
    benchLogRows(rows);
    return 0;
}
