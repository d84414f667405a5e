#pragma once

#include "mcp/McpResources.h"
#include "mcp/McpTool.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <functional>
#include <map>
#include <memory>

namespace sbw {

class ActionGate;
class ActionWithdrawal;
class CommandLog;
struct McpCallState;

/// A connected MCP client, as the Agents pane shows it.
struct McpClientInfo
{
    QString sessionId;
    QString name;            ///< clientInfo.name of its initialize request
    QString version;         ///< clientInfo.version
    QString protocolVersion; ///< the revision agreed on in initialize
    QString transport;       ///< "stdio" or "http"
    QString lastTool;        ///< the last tool it called; empty before its first call
    QDateTime lastCall;      ///< UTC; invalid before its first call
};

/// The Model Context Protocol server (revision 2025-06-18, also 2025-03-26 and 2024-11-05):
/// JSON-RPC 2.0 dispatch of initialize, notifications/initialized, ping, tools/list,
/// tools/call, resources/list, resources/templates/list and resources/read per session,
/// independent of the transport (McpStdioTransport, McpHttpTransport).
///
/// Resources (capability `resources`, without subscribe or listChanged): the files that tool
/// calls of this server produced (McpToolResult::resources: run_code's artifacts, kept on the
/// host), to every session, oldest first, the last McpResourceList::kMaxResources of them, in
/// pages of McpResourceList::kPageSize. resources/read returns one file of up to
/// kMaxResourceReadBytes as text (valid UTF-8) or base64 blob; a URI the server does not offer
/// (or whose host copy is gone) is error kResourceNotFound "Resource not found" with
/// data.uri; a bigger or unreadable file is kInternalError. There are no resource templates
/// (an empty list).
///
/// Every tools/call goes through the ActionGate before anything runs: the tool's prepare()
/// describes the call as an ActionRequest (actor: Agent with the client's name), the gate
/// decides, and only an allowed call runs, on the server's own worker threads, logged as one
/// command-log row (LoggedAction) with the gate's approval. A denied call never runs and
/// answers isError with "denied: REASON" (its row is the gate's, see PolicyGate). A call
/// waiting for a person keeps its request open until the gate decides.
///
/// Cancelling (notifications/cancelled with the request's id, or the client going away: its
/// session closed, its stdin ended, its HTTP connection dropped before the answer) stops the
/// call: one waiting for a person is withdrawn from the approval queue; a running one has
/// McpCall::cancel raised (exec kills the command's process group, run_code destroys its
/// microVM) and its row ends Cancelled with who cancelled ("cancelled by the client (agent
/// NAME): REASON"); a call still resolving is dropped before the gate (a Cancelled row). A
/// cancelled call is never answered.
///
/// Progress: a tools/call whose params._meta.progressToken is a string or a number gets
/// notifications/progress for it while it runs (McpCall::progress; run_code: each phase, and its
/// place in the queue while every place for a microVM is taken), `progress` counting 1, 2, …
/// and `message` saying what happens; never after the call was answered or cancelled.
///
/// Replies carry large values once: for a session at revision 2025-06-18 (which knows
/// structuredContent) the text block is the JSON of structuredContent without the tool's
/// McpToolResult::structuredOnly values (each replaced by where it is); for older revisions
/// the text block is the whole JSON and there is no structuredContent.
///
/// Errors: malformed messages and unknown methods are JSON-RPC errors (McpJsonRpc.h codes);
/// an unknown tool is kInvalidParams; bad arguments, unknown workspaces, timeouts and denials
/// are tool results with isError true and a readable text.
///
/// Lives on one thread (with the gate); every member must be called there.
class McpServer : public QObject
{
    Q_OBJECT

public:
    /// `gate` is not owned and must outlive the server; `log` may be null (nothing logged).
    McpServer(ActionGate* gate, std::shared_ptr<CommandLog> log, QObject* parent = nullptr);
    ~McpServer() override;

    void addTool(McpTool tool);
    QList<McpTool> tools() const { return m_tools; }

    /// A new session for a client on `transport` ("stdio", "http"); returns its id (random,
    /// visible ASCII as Mcp-Session-Id needs).
    QString openSession(const QString& transport);
    /// Ends session `id`: it is forgotten, later messages for it are refused, and
    /// sessionClosed() is emitted. Its calls are cancelled (see above); `how` says how the
    /// client went, for their rows ("it closed its input").
    void closeSession(const QString& id,
                      const QString& how = QStringLiteral("its session was closed"));
    /// The client of session `sessionId` can no longer get the answer to request `requestId`
    /// (its HTTP connection closed): the call is cancelled as when the client went away, `how`
    /// saying how. Nothing happens for a request that is not in progress.
    void abandonRequest(const QString& sessionId, const QJsonValue& requestId, const QString& how);
    bool hasSession(const QString& id) const;
    QList<McpClientInfo> clients() const;

    using Reply = std::function<void(const QJsonObject& message)>;
    /// Handles one parsed JSON-RPC message of session `sessionId`. For a request, `reply` is
    /// called with the notifications that belong to it (notifications/progress, messages
    /// without an id), then exactly once with the response, possibly later (tools/call); for
    /// notifications and responses it is never called.
    void handle(const QString& sessionId, const QJsonValue& message, const Reply& reply);

Q_SIGNALS:
    /// A session was opened, initialized, closed, or made a call.
    void clientsChanged();
    void sessionClosed(const QString& sessionId);

private:
    struct Session
    {
        McpClientInfo info;
        bool initialized = false; ///< answered initialize
    };

    /// One tools/call from its prepare() to its answer.
    struct Call
    {
        QString session;
        QJsonValue requestId;
        QString agent;          ///< the client's name, for the rows of cancelled calls
        bool structured = true; ///< the session's revision knows structuredContent
        Reply reply;
        std::shared_ptr<McpCallState> state;   ///< shared with the worker that runs it
        QPointer<ActionWithdrawal> withdrawal; ///< while the gate decides
        QJsonValue progressToken; ///< params._meta.progressToken; undefined when not asked for
        int progressCount = 0;    ///< notifications/progress sent so far
    };

    void handleNotification(const QString& sessionId, const Session& session,
                            const QString& method, const QJsonObject& params);
    void handleRequest(Session& session, const QJsonValue& id, const QString& method,
                       const QJsonObject& params, const Reply& reply);
    Expected<QJsonObject> initialize(Session& session, const QJsonObject& params);
    void callTool(Session& session, const QJsonValue& id, const QJsonObject& params,
                  const Reply& reply);
    void resolve(quint64 number, const McpTool& tool, McpCall call);
    void askGate(quint64 number, const McpTool& tool, McpCall call);
    void runAllowed(quint64 number, const McpTool& tool, const McpCall& call,
                    const GateDecision& decision);
    void answer(quint64 number, const McpToolResult& result);
    /// Sends call `number`'s client a notifications/progress with `message`, if it asked.
    void notifyProgress(quint64 number, const QString& message);
    /// Cancels call `number` with `why` (the text of its row's error).
    void cancel(quint64 number, const QString& why);
    /// Cancels the call of `sessionId` whose request id is `requestId`, if there is one.
    void cancelRequest(const QString& sessionId, const QJsonValue& requestId, const QString& why);
    /// Logs a call that ended before it ran (bad arguments, resolution failed, cancelled).
    void logUnrun(const McpCall& call, const McpTool& tool, const ActionEnd& end);
    void listResources(const QJsonValue& id, const QJsonObject& params, const Reply& reply);
    void readResource(const QJsonValue& id, const QJsonObject& params, const Reply& reply);

    ActionGate* m_gate;
    std::shared_ptr<CommandLog> m_log;
    QList<McpTool> m_tools;
    mcp::McpResourceList m_resources;
    std::map<QString, Session> m_sessions;
    std::map<quint64, Call> m_calls; ///< by a number of the server's own
    quint64 m_nextCall = 1;
    QThreadPool m_workers; ///< last member: destroyed (and waited for) first
};

/// The tools/call result for `result`: structuredContent (when `structured`: the client's
/// revision knows it), content (a text block: the error, or the JSON of structuredContent
/// with the McpToolResult::structuredOnly values replaced by where they are, or the whole JSON
/// when not `structured`; then McpToolResult::content), isError.
QJsonObject mcpCallResult(const McpToolResult& result, bool structured = true);
/// Whether protocol revision `version` ("2025-06-18") has structuredContent in tool results.
bool revisionHasStructuredContent(const QString& version);

} // namespace sbw
