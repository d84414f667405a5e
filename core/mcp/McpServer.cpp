#include "mcp/McpServer.h"

#include "action/ActionGate.h"
#include "base/Async.h"
#include "log/LoggedAction.h"
#include "mcp/McpCommandOutput.h"
#include "mcp/McpFileChanges.h"
#include "mcp/McpJsonRpc.h"
#include "workspace/WorkspaceEnvironment.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>
#include <mutex>

namespace sbw {

/// What a call's worker and the server's thread share: the cancel flag the tool watches and
/// why it was raised (for the row).
struct McpCallState
{
    std::atomic_bool cancel{false};
    std::mutex mutex;
    QString why; ///< empty until cancelled

    QString reason()
    {
        std::lock_guard lock(mutex);
        return why;
    }
};

using namespace mcp;

namespace {

/// A call's row command: the guest path for file actions, the step with its page for browse
/// actions ("navigate https://…", "click e2 on https://…": their path is only the page the
/// policy judges), else the command (exec: with its variables).
QString rowCommand(const ActionRequest& request)
{
    if (request.path.isEmpty() || request.kind == ActionKind::Browse)
        return commandWithEnvironment(request);
    return request.path;
}

/// The row's end of a call cancelled before it ran (`why`: who cancelled, or how its client went).
ActionEnd cancelledBeforeItRan(const QString& why)
{
    ActionEnd end;
    end.outcome = Outcome::Cancelled;
    end.error = why;
    return end;
}

/// How a call's row ends once its client gave up on it: a command the cancellation stopped
/// says so with who cancelled; one that had already ended keeps its outcome, with a note that
/// its answer was not sent.
ActionEnd endAfterCancel(ActionEnd end, const QString& why)
{
    if (why.isEmpty())
        return end;
    if (end.outcome == Outcome::Cancelled) {
        end.error = why;
        return end;
    }
    const QString note = QStringLiteral("no answer was sent: %1").arg(why);
    end.error = end.error.isEmpty() ? note : end.error + QStringLiteral("; ") + note;
    return end;
}

/// Whether `message` is a JSON-RPC 2.0 request or notification to act on. When it is not,
/// answers what deserves an answer (garbage with an id, a batch, a bad id or version) and
/// drops the rest (responses to requests this server never sends).
bool wellFormed(const QJsonValue& message, const McpServer::Reply& reply)
{
    const QJsonObject object = message.toObject();
    const QJsonValue id = object.value(QLatin1String("id"));
    const bool request = isRequest(message);
    if (!request && !isNotification(message)) {
        if (message.isObject() &&
            (object.contains(QLatin1String("result")) || object.contains(QLatin1String("error"))))
            return false;
        if (message.isArray())
            reply(errorMessage(QJsonValue::Null, kInvalidRequest,
                               QStringLiteral("batches are not supported")));
        else
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("not a JSON-RPC 2.0 request")));
        return false;
    }
    if (object.value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0")) {
        if (request)
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("jsonrpc must be \"2.0\"")));
        return false;
    }
    if (request && !(id.isString() || id.isDouble())) {
        reply(errorMessage(QJsonValue::Null, kInvalidRequest,
                           QStringLiteral("id must be a string or a number")));
        return false;
    }
    return true;
}

/// The answer to a call approved as previewed (GateDecision::previewed): what the action did
/// in the preview's fork, which its workspace became, shaped as the tool's own result.
McpToolResult previewedResult(const McpCall& call, const PreviewedOutcome& outcome)
{
    McpToolResult result;
    ExecStatus status;
    status.exitStatus = outcome.exitStatus;
    status.signal = outcome.signal;
    result.end = LoggedAction::endOf(Expected<ExecStatus>(status));
    result.end.error = QStringLiteral("approved as previewed: ran in fork %1, which the workspace became")
                           .arg(outcome.fork);
    call.log->output(OutputStream::Stdout, outcome.stdoutBytes);
    call.log->output(OutputStream::Stderr, outcome.stderrBytes);
    if (call.request.kind == ActionKind::FileWrite) {
        result.structured = {{QStringLiteral("path"), call.request.path},
                             {QStringLiteral("size"), call.request.content.size()}};
        return result;
    }
    McpCommandOutput output;
    output.add(OutputStream::Stdout, outcome.stdoutBytes);
    output.add(OutputStream::Stderr, outcome.stderrBytes);
    result.structured = output.structured(status, outcome.wallMs, call.log->id());
    result.structuredOnly = {QStringLiteral("stdout"), QStringLiteral("stderr")};
    if (outcome.fileChanges.tracked)
        mcp::addFileChanges(result, outcome.fileChanges);
    return result;
}

} // namespace

McpToolResult McpToolResult::failure(const QString& message, Outcome outcome)
{
    McpToolResult result;
    result.error = message;
    result.end.outcome = outcome;
    result.end.error = message;
    return result;
}

McpToolResult McpToolResult::denied(const QString& reason)
{
    McpToolResult result = failure(QStringLiteral("denied: ") + reason, Outcome::Denied);
    result.end.error = reason;
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

bool revisionHasStructuredContent(const QString& version)
{
    return version >= QLatin1String("2025-06-18"); // revisions are dates
}

QJsonObject mcpCallResult(const McpToolResult& result, bool structured)
{
    QJsonObject shown = result.structured;
    if (structured)
        for (const QString& key : result.structuredOnly)
            if (shown.contains(key))
                shown.insert(key, QStringLiteral("(in structuredContent.%1)").arg(key));
    QString text = QString::fromUtf8(QJsonDocument(shown).toJson(QJsonDocument::Compact));
    if (!result.error.isEmpty())
        text = result.structured.isEmpty() || structured ? result.error
                                                         : result.error + QLatin1Char('\n') + text;
    QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                   {QStringLiteral("text"), text}}};
    for (const QJsonValue& block : result.content)
        content.append(block);
    QJsonObject answer{{QStringLiteral("content"), content},
                       {QStringLiteral("isError"), !result.error.isEmpty()}};
    if (structured && !result.structured.isEmpty())
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

McpServer::~McpServer()
{
    // Running calls stop (their workers finish their rows); waiting ones leave the queue.
    std::vector<quint64> numbers;
    for (const auto& [number, call] : m_calls)
        numbers.push_back(number);
    for (quint64 number : numbers)
        cancel(number, QStringLiteral("cancelled: the workbench's MCP server stopped"));
    m_workers.waitForDone();
}

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

void McpServer::closeSession(const QString& id, const QString& how)
{
    const auto found = m_sessions.find(id);
    if (found == m_sessions.end())
        return;
    const QString agent = found->second.info.name;
    m_sessions.erase(found);
    std::vector<quint64> numbers;
    for (const auto& [number, call] : m_calls)
        if (call.session == id)
            numbers.push_back(number);
    for (quint64 number : numbers)
        cancel(number,
               QStringLiteral("cancelled: the client (agent %1) went away: %2").arg(agent, how));
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
    if (!wellFormed(message, reply))
        return;
    const QJsonObject object = message.toObject();
    const QJsonValue id = object.value(QLatin1String("id"));
    const bool request = isRequest(message);
    auto found = m_sessions.find(sessionId);
    if (found == m_sessions.end()) {
        if (request)
            reply(errorMessage(id, kInvalidRequest, QStringLiteral("unknown session")));
        return;
    }
    const QString method = object.value(QLatin1String("method")).toString();
    const QJsonValue params = object.value(QLatin1String("params"));
    if (!params.isUndefined() && !params.isObject()) {
        if (request)
            reply(errorMessage(id, kInvalidParams, QStringLiteral("params must be an object")));
        return;
    }
    if (request)
        handleRequest(found->second, id, method, params.toObject(), reply);
    else
        handleNotification(sessionId, found->second, method, params.toObject());
}

void McpServer::handleNotification(const QString& sessionId, const Session& session,
                                   const QString& method, const QJsonObject& params)
{
    // notifications/initialized and the others need nothing.
    if (method != QLatin1String("notifications/cancelled"))
        return;
    const QString reason = params.value(QLatin1String("reason")).toString();
    QString why = QStringLiteral("cancelled by the client (agent %1)").arg(session.info.name);
    if (!reason.isEmpty())
        why += QStringLiteral(": ") + reason;
    cancelRequest(sessionId, params.value(QLatin1String("requestId")), why);
}

void McpServer::handleRequest(Session& session, const QJsonValue& id, const QString& method,
                              const QJsonObject& params, const Reply& reply)
{
    if (method == QLatin1String("ping")) {
        reply(resultMessage(id, {}));
        return;
    }
    if (method == QLatin1String("initialize")) {
        if (session.initialized) {
            reply(errorMessage(id, kInvalidRequest,
                               QStringLiteral("the session is already initialized")));
            return;
        }
        const Expected<QJsonObject> result = initialize(session, params);
        reply(result ? resultMessage(id, result.value())
                     : errorMessage(id, kInvalidParams, result.error().message));
        return;
    }
    if (!session.initialized) {
        reply(
            errorMessage(id, kInvalidRequest,
                         QStringLiteral("the session is not initialized: send initialize first")));
        return;
    }
    if (method == QLatin1String("tools/list")) {
        QJsonArray list;
        for (const McpTool& tool : std::as_const(m_tools))
            list.append(tool.definition());
        reply(resultMessage(id, {{QStringLiteral("tools"), list}}));
    } else if (method == QLatin1String("tools/call")) {
        callTool(session, id, params, reply);
    } else if (method == QLatin1String("resources/list")) {
        listResources(id, params, reply);
    } else if (method == QLatin1String("resources/templates/list")) {
        reply(resultMessage(id, {{QStringLiteral("resourceTemplates"), QJsonArray()}}));
    } else if (method == QLatin1String("resources/read")) {
        readResource(id, params, reply);
    } else {
        reply(errorMessage(id, kMethodNotFound, QStringLiteral("unknown method: %1").arg(method)));
    }
}

void McpServer::listResources(const QJsonValue& id, const QJsonObject& params, const Reply& reply)
{
    const QJsonValue cursor = params.value(QLatin1String("cursor"));
    if (!cursor.isUndefined() && !cursor.isString()) {
        reply(errorMessage(id, kInvalidParams, QStringLiteral("params.cursor must be a string")));
        return;
    }
    auto page = m_resources.page(cursor.isString() ? std::optional<QString>(cursor.toString())
                                                   : std::nullopt);
    reply(page ? resultMessage(id, page.value())
               : errorMessage(id, kInvalidParams, page.error().message));
}

Expected<QJsonObject> McpServer::initialize(Session& session, const QJsonObject& params)
{
    const QJsonValue version = params.value(QLatin1String("protocolVersion"));
    if (!version.isString())
        return makeError(QStringLiteral("params.protocolVersion must be a string"));
    const QJsonObject clientInfo = params.value(QLatin1String("clientInfo")).toObject();
    session.info.name = clientInfo.value(QLatin1String("name")).toString();
    session.info.version = clientInfo.value(QLatin1String("version")).toString();
    session.info.protocolVersion = negotiateProtocolVersion(version.toString());
    session.initialized = true;
    Q_EMIT clientsChanged();
    return QJsonObject{
        {QStringLiteral("protocolVersion"), session.info.protocolVersion},
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
    auto tool = std::find_if(m_tools.cbegin(), m_tools.cend(),
                             [&](const McpTool& t) { return t.name == name; });
    if (tool == m_tools.cend()) {
        reply(errorMessage(id, kInvalidParams, QStringLiteral("unknown tool: %1").arg(name)));
        return;
    }
    const QJsonValue arguments = params.value(QLatin1String("arguments"));
    session.info.lastTool = name;
    session.info.lastCall = QDateTime::currentDateTimeUtc();
    Q_EMIT clientsChanged();

    Actor actor{Actor::Kind::Agent, session.info.name};
    auto prepared =
        arguments.isUndefined() || arguments.isObject()
            ? tool->prepare(arguments.toObject())
            : Expected<ActionRequest>(makeError(QStringLiteral("arguments must be an object")));
    const bool structured = revisionHasStructuredContent(session.info.protocolVersion);
    McpCall call;
    call.request.actor = actor;
    call.request.kind = tool->kind;
    call.arguments = arguments.toObject();
    if (!prepared) {
        call.request.command =
            QString::fromUtf8(QJsonDocument(call.arguments).toJson(QJsonDocument::Compact));
        const auto result =
            McpToolResult::failure(QStringLiteral("bad arguments: ") + prepared.error().message);
        logUnrun(call, *tool, result.end);
        reply(resultMessage(id, mcpCallResult(result, structured)));
        return;
    }
    call.request = prepared.value();
    call.request.actor = actor;
    const quint64 number = m_nextCall++;
    QJsonValue progressToken =
        params.value(QLatin1String("_meta")).toObject().value(QLatin1String("progressToken"));
    if (!progressToken.isString() && !progressToken.isDouble())
        progressToken = QJsonValue::Undefined;
    m_calls.emplace(number, Call{session.info.sessionId, id, session.info.name, structured, reply,
                                 std::make_shared<McpCallState>(), nullptr, progressToken});
    if (tool->resolve)
        resolve(number, *tool, call);
    else
        askGate(number, *tool, call);
}

void McpServer::resolve(quint64 number, const McpTool& tool, McpCall call)
{
    // Resolution asks the guest (file tools: symlinks): not on the server's thread.
    runThen(
        &m_workers, this, [tool, request = call.request] { return tool.resolve(request); },
        [this, number, tool, call](const Expected<ActionRequest>& resolved) mutable {
            const auto found = m_calls.find(number);
            if (found == m_calls.end())
                return;
            if (const QString why = found->second.state->reason(); !why.isEmpty()) {
                logUnrun(call, tool, cancelledBeforeItRan(why));
                m_calls.erase(found);
                return;
            }
            if (!resolved) {
                const auto result = McpToolResult::failure(resolved.error().message);
                logUnrun(call, tool, result.end);
                answer(number, result);
                return;
            }
            call.request = resolved.value();
            askGate(number, tool, call);
        });
}

void McpServer::askGate(quint64 number, const McpTool& tool, McpCall call)
{
    Call& pending = m_calls.at(number);
    pending.withdrawal = new ActionWithdrawal(this);
    call.request.withdrawal = pending.withdrawal;
    QPointer<McpServer> self(this);
    m_gate->decide(call.request, [self, number, tool, call](const GateDecision& decision) {
        if (!self)
            return;
        const auto found = self->m_calls.find(number);
        if (found == self->m_calls.end())
            return;
        if (found->second.withdrawal)
            found->second.withdrawal->deleteLater();
        if (const QString why = found->second.state->reason(); !why.isEmpty()) {
            // Withdrawn while it waited (the gate logged that), or decided by a gate that
            // ignores withdrawals: either way it never runs and is not answered.
            if (decision.allowed)
                self->logUnrun(call, tool, cancelledBeforeItRan(why));
            self->m_calls.erase(found);
            return;
        }
        if (!decision.allowed) {
            const QString reason =
                decision.reason.isEmpty() ? QStringLiteral("no reason given") : decision.reason;
            self->answer(number, McpToolResult::denied(reason));
            return;
        }
        self->runAllowed(number, tool, call, decision);
    });
}

void McpServer::runAllowed(quint64 number, const McpTool& tool, const McpCall& asked,
                           const GateDecision& decision)
{
    McpCall call = asked;
    if (decision.edited) {
        call.request = *decision.edited;
        call.request.actor = asked.request.actor;
    }
    call.request.withdrawal = nullptr;
    call.approval = decision.approval;
    ActionStart start;
    start.sandbox = call.request.sandbox;
    start.actor = call.request.actor;
    start.kind = call.request.kind;
    start.command = rowCommand(call.request);
    if (!call.request.inputFiles.isEmpty()) {
        // A comment line in Python and sh alike, so the row's command is still the script.
        QStringList names;
        for (const InputFile& file : std::as_const(call.request.inputFiles))
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
    std::shared_ptr<McpCallState> state = m_calls.at(number).state;
    call.log = row.get();
    call.cancel = &state->cancel;
    // The workers are waited for before the server goes, so `this` outlives every call.
    call.progress = [this, number](const QString& message) {
        QMetaObject::invokeMethod(this, [this, number, message] { notifyProgress(number, message); },
                                  Qt::QueuedConnection);
    };
    std::optional<PreviewedOutcome> previewed = decision.previewed;
    auto work = [tool, call, row, state, previewed] {
        McpToolResult result = previewed ? previewedResult(call, *previewed) : tool.run(call);
        // The row ends here, not on the server's thread: it ends as the call did even when the
        // server is gone by the time the result would be answered.
        row->finish(endAfterCancel(result.end, state->reason()));
        return result;
    };
    runThen(&m_workers, this, std::move(work),
            [this, number](const McpToolResult& result) { answer(number, result); });
}

void McpServer::answer(quint64 number, const McpToolResult& result)
{
    m_resources.add(result.resources);
    const auto found = m_calls.find(number);
    if (found == m_calls.end())
        return;
    const Call call = std::move(found->second);
    m_calls.erase(found);
    if (call.state->reason().isEmpty())
        call.reply(resultMessage(call.requestId, mcpCallResult(result, call.structured)));
}

void McpServer::notifyProgress(quint64 number, const QString& message)
{
    const auto found = m_calls.find(number);
    if (found == m_calls.end())
        return;
    Call& call = found->second;
    if (call.progressToken.isUndefined() || !call.state->reason().isEmpty())
        return;
    const QJsonObject params{{QStringLiteral("progressToken"), call.progressToken},
                             {QStringLiteral("progress"), ++call.progressCount},
                             {QStringLiteral("message"), message}};
    call.reply({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                {QStringLiteral("method"), QStringLiteral("notifications/progress")},
                {QStringLiteral("params"), params}});
}

void McpServer::cancel(quint64 number, const QString& why)
{
    const auto found = m_calls.find(number);
    if (found == m_calls.end())
        return;
    Call& call = found->second;
    {
        std::lock_guard lock(call.state->mutex);
        if (!call.state->why.isEmpty())
            return;
        call.state->why = why;
    }
    call.state->cancel = true;
    // Waiting for a person: the queue drops it and the gate's decision comes at once.
    if (call.withdrawal)
        call.withdrawal->withdraw(why);
}

void McpServer::cancelRequest(const QString& sessionId, const QJsonValue& requestId,
                              const QString& why)
{
    for (const auto& [number, call] : m_calls)
        if (call.session == sessionId && call.requestId == requestId) {
            cancel(number, why);
            return;
        }
}

void McpServer::abandonRequest(const QString& sessionId, const QJsonValue& requestId,
                               const QString& how)
{
    const auto session = m_sessions.find(sessionId);
    const QString agent = session == m_sessions.end() ? QString() : session->second.info.name;
    cancelRequest(sessionId, requestId,
                  QStringLiteral("cancelled: the client (agent %1) went away: %2").arg(agent, how));
}

void McpServer::logUnrun(const McpCall& call, const McpTool& tool, const ActionEnd& end)
{
    ActionStart start;
    start.sandbox = call.request.sandbox;
    start.actor = call.request.actor;
    start.kind = tool.kind;
    start.command = rowCommand(call.request);
    start.workdir = call.request.workdir;
    LoggedAction row(m_log, start);
    row.finish(end);
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
    runThen(
        &m_workers, this, [resource = *resource] { return mcp::readResource(resource); },
        [notFound, id, reply](const mcp::ResourceRead& read) {
            if (read.errorCode == kResourceNotFound)
                reply(errorMessage(id, kResourceNotFound, read.error, notFound));
            else if (read.errorCode != 0)
                reply(errorMessage(id, read.errorCode, read.error));
            else
                reply(resultMessage(id, {{QStringLiteral("contents"), QJsonArray{read.contents}}}));
        });
}

} // namespace sbw
