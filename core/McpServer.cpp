#include "McpServer.h"

#include "ActionGate.h"
#include "LoggedAction.h"
#include "McpJsonRpc.h"
#include "WorkspaceEnvironment.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>



namespace sbw {

using namespace mcp;

McpToolResult McpToolResult::failure(const QString& message, Outcome outcome)
{
    McpToolResult result;
    result.error = message;
    result.end.outcome = outcome;
    result.end.error = message;
    return result;
}

QJsonObject McpTool::definition() const
{
    QJsonObject tool{{QStringLiteral("name"), name},
                     {QStringLiteral("title"), title},
                     {QStringLiteral("description"), description},
                     {QStringLiteral("inputSchema"), inputSchema}};
    if (!outputSchema.isEmpty())
        tool.insert(QStringLiteral("outputSchema"), outputSchema);
    return tool;
}

QJsonObject mcpCallResult(const McpToolResult& result)
{
    const QString text = result.error.isEmpty()
                             ? QString::fromUtf8(QJsonDocument(result.structured).toJson(QJsonDocument::Compact))
                             : result.error;
    QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}}};
    for (const QJsonValue& block : result.content)
        content.append(block);
    QJsonObject answer{{QStringLiteral("content"), content}, {QStringLiteral("isError"), !result.error.isEmpty()}};
    if (!result.structured.isEmpty())
        answer.insert(QStringLiteral("structuredContent"), result.structured);
    return answer;
}

McpServer::McpServer(ActionGate* gate, std::shared_ptr<CommandLog> log, QObject* parent)
    : QObject(parent), m_gate(gate), m_log(std::move(log))
{
    // Calls wait in the guest (exec, runs) for as long as their timeouts allow; they must not
    // take the threads of Qt's global pool, which the window's lifecycle actions use.
    m_workers.setMaxThreadCount(16);
}

McpServer::~McpServer() = default;

void McpServer::addTool(McpTool tool)
{
    m_tools.append(std::move(tool));
}

QString McpServer::openSession(const QString& transport)
{
    const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    Session session;
    session.info.sessionId = id;
    session.info.transport = transport;
    m_sessions.emplace(id, std::move(session));
    Q_EMIT clientsChanged();
    return id;
}

void McpServer::closeSession(const QString& id)
{
    if (m_sessions.erase(id) == 0)
        return;
    Q_EMIT sessionClosed(id);
    Q_EMIT clientsChanged();
}

bool McpServer::hasSession(const QString& id) const
{
    return m_sessions.count(id) != 0;
}

QList<McpClientInfo> McpServer::clients() const
{
    QList<McpClientInfo> list;
    for (const auto& [id, session] : m_sessions)
        if (session.initialized)
            list.append(session.info);
    return list;
}

void McpServer::handle(const QString& sessionId, const QJsonValue& message, const Reply& reply)
{
    const QJsonObject object = message.toObject();
    const QJsonValue id = object.value(QLatin1String("id"));
    const bool request = isRequest(message);
    if (!request && !isNotification(message)) {
        // Responses to requests we never send, or garbage: answer garbage when it has an id.
        if (message.isObject() && (object.contains(QLatin1String("result")) || object.contains(QLatin1String("error"))))
            return;
        if (message.isArray())
            reply(errorMessage(QJsonValue::Null, kInvalidRequest, QStringLiteral("batches are not supported")));
        else
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("not a JSON-RPC 2.0 request")));
        return;
    }
    if (object.value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0")) {
        if (request)
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("jsonrpc must be \"2.0\"")));
        return;
    }
    if (request && !(id.isString() || id.isDouble())) {
        reply(errorMessage(QJsonValue::Null, kInvalidRequest, QStringLiteral("id must be a string or a number")));
        return;
    }
    auto found = m_sessions.find(sessionId);
    if (found == m_sessions.end()) {
        if (request)
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("unknown session")));
        return;
    }
    Session& session = found->second;
    const QString method = object.value(QLatin1String("method")).toString();
    const QJsonValue paramsValue = object.value(QLatin1String("params"));
    if (!paramsValue.isUndefined() && !paramsValue.isObject()) {
        if (request)
            reply(errorMessage(id, kInvalidParams, QStringLiteral("params must be an object")));
        return;
    }
    const QJsonObject params = paramsValue.toObject();

    if (!request)
        return; // notifications/initialized, notifications/cancelled, …: nothing to answer

    if (method == QLatin1String("ping")) {
        reply(resultMessage(id, {}));
        return;
    }
    if (method == QLatin1String("initialize")) {
        if (session.initialized) {
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("the session is already initialized")));
            return;
        }
        QString error;
        const QJsonObject result = initialize(session, params, &error);
        reply(error.isEmpty() ? resultMessage(id, result) : errorMessage(id, kInvalidParams, error));
        return;
    }
    if (!session.initialized) {
        reply(errorMessage(id, kInvalidRequest,
                           QStringLiteral("the session is not initialized: send initialize first")));
        return;
    }
    if (method == QLatin1String("tools/list")) {
        QJsonArray list;
        for (const McpTool& tool : std::as_const(m_tools))
            list.append(tool.definition());
        reply(resultMessage(id, {{QStringLiteral("tools"), list}}));
        return;
    }
    if (method == QLatin1String("tools/call")) {
        callTool(session, id, params, reply);
        return;
    }
    if (method == QLatin1String("resources/list")) {
        const QJsonValue cursor = params.value(QLatin1String("cursor"));
        if (!cursor.isUndefined() && !cursor.isString()) {
            reply(errorMessage(id, kInvalidParams, QStringLiteral("params.cursor must be a string")));
            return;
        }
        auto page = m_resources.page(cursor.isString() ? std::optional<QString>(cursor.toString()) : std::nullopt);
        reply(page ? resultMessage(id, page.value()) : errorMessage(id, kInvalidParams, page.error().message));
        return;
    }
    if (method == QLatin1String("resources/templates/list")) {
        reply(resultMessage(id, {{QStringLiteral("resourceTemplates"), QJsonArray()}}));
        return;
    }
    if (method == QLatin1String("resources/read")) {
        readResource(id, params, reply);
        return;
    }
    reply(errorMessage(id, kMethodNotFound, QStringLiteral("unknown method: %1").arg(method)));
}

QJsonObject McpServer::initialize(Session& session, const QJsonObject& params, QString* error)
{
    const QJsonValue version = params.value(QLatin1String("protocolVersion"));
    if (!version.isString()) {
        *error = QStringLiteral("params.protocolVersion must be a string");
        return {};
    }
    const QJsonObject clientInfo = params.value(QLatin1String("clientInfo")).toObject();
    session.info.name = clientInfo.value(QLatin1String("name")).toString();
    session.info.version = clientInfo.value(QLatin1String("version")).toString();
    session.info.protocolVersion = negotiateProtocolVersion(version.toString());
    session.initialized = true;
    Q_EMIT clientsChanged();
    return {{QStringLiteral("protocolVersion"), session.info.protocolVersion},
            {QStringLiteral("capabilities"),
             QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}},
                         {QStringLiteral("resources"), QJsonObject()}}},
            {QStringLiteral("serverInfo"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("sandbox-workbench")},
                         {QStringLiteral("title"), QStringLiteral("Sandbox Workbench")},
                         {QStringLiteral("version"), QStringLiteral(SBW_VERSION)}}},
            {QStringLiteral("instructions"),
             QStringLiteral("Sandboxes are QEMU microVMs. run_code runs a script in a fresh microVM "
                            "that is destroyed afterwards (give it input files; it returns the files "
                            "the script writes under out/); workspaces are named microVMs whose "
                            "files and processes persist (exec, read_file, write_file, list_files, "
                            "pause, resume, checkpoint). A person may have to approve a call "
                            "before it runs; a denied call returns its reason. The files of "
                            "runs are resources (resources/read, URIs in run_code's result).")}};
}

void McpServer::callTool(Session& session, const QJsonValue& id, const QJsonObject& params,
                         const Reply& reply)
{
    const QString name = params.value(QLatin1String("name")).toString();
    auto tool = std::find_if(m_tools.cbegin(), m_tools.cend(), [&](const McpTool& t) { return t.name == name; });
    if (tool == m_tools.cend()) {
        reply(errorMessage(id, kInvalidParams, QStringLiteral("unknown tool: %1").arg(name)));
        return;
    }
    const QJsonValue arguments = params.value(QLatin1String("arguments"));
    session.info.lastTool = name;
    session.info.lastCall = QDateTime::currentDateTimeUtc();
    Q_EMIT clientsChanged();

    Actor actor{Actor::Kind::Agent, session.info.name};
    auto prepared = arguments.isUndefined() || arguments.isObject()
                        ? tool->prepare(arguments.toObject())
                        : Expected<ActionRequest>(makeError(QStringLiteral("arguments must be an object")));
    if (!prepared) {
        ActionStart start;
        start.actor = actor;
        start.kind = tool->kind;
        start.command = QString::fromUtf8(QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact));
        LoggedAction row(m_log, start);
        const auto result = McpToolResult::failure(QStringLiteral("bad arguments: ") + prepared.error().message);
        row.finish(result.end);
        reply(resultMessage(id, mcpCallResult(result)));
        return;
    }
    McpCall call;
    call.request = prepared.value();
    call.request.actor = actor;
    call.arguments = arguments.toObject();
    const McpTool toolCopy = *tool;
    QPointer<McpServer> self(this);
    m_gate->decide(call.request, [self, toolCopy, call, id, reply](const GateDecision& decision) {
        if (!self)
            return;
        if (!decision.allowed) {
            const QString reason = decision.reason.isEmpty() ? QStringLiteral("no reason given") : decision.reason;
            reply(resultMessage(id, mcpCallResult(McpToolResult::failure(QStringLiteral("denied: ") + reason,
                                                                         Outcome::Denied))));
            return;
        }
        self->runAllowed(toolCopy, call, decision, id, reply);
    });
}

void McpServer::runAllowed(const McpTool& tool, const McpCall& asked, const GateDecision& decision,
                           const QJsonValue& id, const Reply& reply)
{
    McpCall call = asked;
    if (decision.edited) {
        call.request = *decision.edited;
        call.request.actor = asked.request.actor;
    }
    ActionStart start;
    start.sandbox = call.request.sandbox;
    start.actor = call.request.actor;
    start.kind = call.request.kind;
    start.command = call.request.path.isEmpty() ? commandWithEnvironment(call.request) : call.request.path;
    if (!call.request.inputFiles.isEmpty()) {
        // A comment line in Python and sh alike, so the row's command is still the script.
        QStringList names;
        for (const ActionInputFile& file : std::as_const(call.request.inputFiles))
            names << file.name;
        if (!start.command.endsWith(QLatin1Char('\n')))
            start.command += QLatin1Char('\n');
        start.command += QStringLiteral("# input files: ") + names.join(QStringLiteral(", "));
    }
    start.workdir = call.request.workdir;
    start.approval = decision.approval;
    start.approver = decision.approver;
    // The workspace's secret values are masked in the row's command and output.
    if (m_log && !start.sandbox.isEmpty())
        if (auto environment = loadWorkspaceEnvironment(start.sandbox))
            m_log->setSecrets(start.sandbox, environment->secretValues());
    auto row = std::make_shared<LoggedAction>(m_log, start);
    call.log = row.get();
    QPointer<McpServer> self(this);
    m_workers.start([self, tool, call, row, id, reply] {
        McpToolResult result = tool.run(call);
        QMetaObject::invokeMethod(
            self.data(),
            [self, row, result, id, reply] {
                row->finish(result.end);
                self->m_resources.add(result.resources);
                reply(resultMessage(id, mcpCallResult(result)));
            },
            Qt::QueuedConnection);
    });
}

void McpServer::readResource(const QJsonValue& id, const QJsonObject& params, const Reply& reply)
{
    const QJsonValue uri = params.value(QLatin1String("uri"));
    if (!uri.isString()) {
        reply(errorMessage(id, kInvalidParams, QStringLiteral("params.uri must be a string")));
        return;
    }
    const QJsonObject notFound{{QStringLiteral("uri"), uri}};
    const std::optional<mcp::McpResource> resource = m_resources.find(uri.toString());
    if (!resource) {
        reply(errorMessage(id, kResourceNotFound, QStringLiteral("Resource not found"), notFound));
        return;
    }
    // Up to 16 MiB from the disk and into base64: not on the server's (the window's) thread.
    QPointer<McpServer> self(this);
    m_workers.start([self, resource = *resource, notFound, id, reply] {
        const mcp::ResourceRead read = mcp::readResource(resource);
        QMetaObject::invokeMethod(
            self.data(),
            [read, notFound, id, reply] {
                if (read.errorCode == kResourceNotFound)
                    reply(errorMessage(id, kResourceNotFound, read.error, notFound));
                else if (read.errorCode != 0)
                    reply(errorMessage(id, read.errorCode, read.error));
                else
                    reply(resultMessage(id, {{QStringLiteral("contents"), QJsonArray{read.contents}}}));
            },
            Qt::QueuedConnection);
    });
}

} // namespace sbw
