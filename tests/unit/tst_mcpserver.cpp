// McpServer's JSON-RPC dispatch without a transport or a guest: initialize and version
// negotiation, ping, tools/list, tools/call through a gate (allowed, denied, waiting), errors,
// and the resources that calls produce (resources/list pages, resources/read, its errors);
// cancelling (notifications/cancelled, a closed session, stdin's end, a call waiting for a
// person), replies that carry large values once, and the resolution step before the gate.

#include "action/ActionGate.h"
#include "approval/ApprovalQueue.h"
#include "log/CommandLog.h"
#include "log/LoggedAction.h"
#include "mcp/McpCommandOutput.h"
#include "mcp/McpJsonRpc.h"
#include "mcp/McpServer.h"
#include "mcp/McpStdioTransport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <fcntl.h>
#include <optional>
#include <thread>
#include <unistd.h>

namespace {

/// Test-only gate: denies commands containing "forbidden", keeps commands containing "wait"
/// until release(), puts commands containing "person" into a real approval queue, allows
/// everything else.
class TestGate : public sbw::ActionGate
{
public:
    void decide(const sbw::ActionRequest& request, Done done) override
    {
        asked.append(request);
        if (request.command.contains(QLatin1String("person"))) {
            queue.enqueue(request, [this, done](const sbw::GateDecision& decision) {
                decisions.append(decision);
                done(decision);
            });
        } else if (request.command.contains(QLatin1String("forbidden"))) {
            sbw::GateDecision decision;
            decision.approval = sbw::Approval::Denied;
            decision.reason = QStringLiteral("not on my watch");
            done(decision);
        } else if (request.command.contains(QLatin1String("wait"))) {
            waiting = done;
        } else {
            done(sbw::GateDecision{true, sbw::Approval::Auto, {}, {}, {}});
        }
    }
    void release(bool allow)
    {
        sbw::GateDecision decision;
        decision.allowed = allow;
        decision.approval = allow ? sbw::Approval::Approved : sbw::Approval::Denied;
        decision.approver = QStringLiteral("alice");
        decision.reason = allow ? QString() : QStringLiteral("no");
        auto done = std::move(waiting);
        waiting = {};
        done(decision);
    }

    QList<sbw::ActionRequest> asked;
    Done waiting;
    QList<sbw::GateDecision> decisions; ///< of the queue
    sbw::ApprovalQueue queue;           ///< after decisions: destroyed (denying its entries) first
};

/// A tool that echoes its text argument (runs on the server's worker thread), reporting two
/// steps of progress ("started", "echoing TEXT").
sbw::McpTool echoTool()
{
    sbw::McpTool tool;
    tool.name = QStringLiteral("echo");
    tool.title = QStringLiteral("Echo");
    tool.description = QStringLiteral("Returns its text.");
    tool.kind = sbw::ActionKind::Exec;
    tool.inputSchema = QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}};
    tool.outputSchema = QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}};
    tool.prepare = [](const QJsonObject& arguments) -> sbw::Expected<sbw::ActionRequest> {
        if (!arguments.value(QLatin1String("text")).isString())
            return sbw::makeError(QStringLiteral("text is required"));
        sbw::ActionRequest request;
        request.kind = sbw::ActionKind::Exec;
        request.sandbox = QStringLiteral("demo");
        request.command = arguments.value(QLatin1String("text")).toString();
        return request;
    };
    tool.run = [](const sbw::McpCall& call) {
        call.progress(QStringLiteral("started"));
        call.progress(QStringLiteral("echoing ") + call.request.command);
        call.log->output(sbw::OutputStream::Stdout, call.request.command.toUtf8());
        sbw::McpToolResult result;
        result.structured = {{QStringLiteral("text"), call.request.command}};
        return result;
    };
    return tool;
}

/// Set while a `block` call runs (one at a time).
std::atomic_bool g_blockRunning{false};

/// A tool that runs until its call is cancelled (or 20 s pass), as an exec of `sleep` does, and
/// ends Cancelled with the signal a killed command has.
sbw::McpTool blockTool()
{
    sbw::McpTool tool = echoTool();
    tool.name = QStringLiteral("block");
    tool.run = [](const sbw::McpCall& call) {
        g_blockRunning = true;
        call.log->output(sbw::OutputStream::Stdout, "started\n");
        for (int i = 0; i < 2000 && !*call.cancel; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        g_blockRunning = false;
        if (!*call.cancel) {
            sbw::McpToolResult result;
            result.structured = {{QStringLiteral("text"), QStringLiteral("ran to its end")}};
            return result;
        }
        auto result =
            sbw::McpToolResult::failure(QStringLiteral("cancelled"), sbw::Outcome::Cancelled);
        result.end.signal = 9;
        return result;
    };
    return tool;
}

/// A tool whose resolve step (on a worker, 300 ms) turns the path /root/link/x into /etc/x,
/// and which returns a big value that the text block leaves out for 2025-06-18 clients.
sbw::McpTool resolvingTool()
{
    sbw::McpTool tool = echoTool();
    tool.name = QStringLiteral("resolving");
    tool.kind = sbw::ActionKind::FileWrite;
    tool.prepare = [](const QJsonObject& arguments) -> sbw::Expected<sbw::ActionRequest> {
        sbw::ActionRequest request;
        request.kind = sbw::ActionKind::FileWrite;
        request.sandbox = QStringLiteral("demo");
        request.path = arguments.value(QLatin1String("path")).toString();
        return request;
    };
    tool.resolve = [](const sbw::ActionRequest& prepared) -> sbw::Expected<sbw::ActionRequest> {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        if (prepared.path.contains(QLatin1String("loop")))
            return sbw::makeError(
                QStringLiteral("cannot resolve %1 in the guest: Too many levels of symbolic links")
                    .arg(prepared.path));
        sbw::ActionRequest request = prepared;
        request.path.replace(QLatin1String("/root/link"), QLatin1String("/etc"));
        return request;
    };
    tool.run = [](const sbw::McpCall& call) {
        sbw::McpToolResult result;
        result.structured = {{QStringLiteral("path"), call.request.path},
                             {QStringLiteral("content"), QStringLiteral("big")}};
        result.structuredOnly = {QStringLiteral("content")};
        return result;
    };
    return tool;
}

/// A tool that offers the files named in its `files` argument (host paths) as resources
/// test://NAME, as run_code offers its artifacts.
sbw::McpTool filesTool()
{
    sbw::McpTool tool = echoTool();
    tool.name = QStringLiteral("files");
    tool.prepare = [](const QJsonObject& arguments) -> sbw::Expected<sbw::ActionRequest> {
        sbw::ActionRequest request;
        request.kind = sbw::ActionKind::Run;
        request.command = arguments.value(QLatin1String("files"))
                              .toVariant()
                              .toStringList()
                              .join(QLatin1Char(' '));
        return request;
    };
    tool.run = [](const sbw::McpCall& call) {
        sbw::McpToolResult result;
        for (const QString& path : call.request.command.split(QLatin1Char(' '))) {
            const QString name = path.section(QLatin1Char('/'), -1);
            result.resources.append(
                {QStringLiteral("test://") + name, name, QStringLiteral("made by a test"),
                 QStringLiteral("application/octet-stream"), QFileInfo(path).size(), path});
        }
        return result;
    };
    return tool;
}

QJsonObject request(int id, const QString& method, const QJsonObject& params = {})
{
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    return message;
}

QJsonObject initializeParams(const QString& version)
{
    return {{QStringLiteral("protocolVersion"), version},
            {QStringLiteral("capabilities"), QJsonObject{}},
            {QStringLiteral("clientInfo"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-code")},
                         {QStringLiteral("version"), QStringLiteral("2.0.1")}}}};
}

} // namespace

class TestMcpServer : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<sbw::CommandLog> m_log;
    std::unique_ptr<TestGate> m_gate;
    std::unique_ptr<sbw::McpServer> m_server;
    QString m_session;

    /// Sends `message`; returns the answer once it came (nullopt for none within 5 s).
    std::optional<QJsonObject> send(const QJsonValue& message, const QString& session = {})
    {
        std::optional<QJsonObject> answer;
        m_server->handle(session.isEmpty() ? m_session : session, message,
                         [&answer](const QJsonObject& reply) { answer = reply; });
        if (!answer)
            (void)QTest::qWaitFor([&] { return answer.has_value(); }, 5000);
        return answer;
    }

    QString initializedSession()
    {
        const QString session = m_server->openSession(QStringLiteral("stdio"));
        send(request(1, QStringLiteral("initialize"),
                     initializeParams(QStringLiteral("2025-06-18"))),
             session);
        return session;
    }

    QJsonObject call(const QString& tool, const QJsonObject& arguments)
    {
        auto answer = send(
            request(7, QStringLiteral("tools/call"),
                    {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}}));
        return answer ? answer->value(QLatin1String("result")).toObject() : QJsonObject();
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto log = sbw::CommandLog::open(
            m_dir.filePath(QStringLiteral("log-%1-%2.sqlite")
                               .arg(QTest::currentTestFunction(),
                                    QString::fromUtf8(QTest::currentDataTag())
                                        .replace(QLatin1Char(' '), QLatin1Char('-')))));
        QVERIFY(log.ok());
        m_log = log.value();
        m_gate = std::make_unique<TestGate>();
        m_server = std::make_unique<sbw::McpServer>(m_gate.get(), m_log);
        m_server->addTool(echoTool());
        m_server->addTool(filesTool());
        m_server->addTool(blockTool());
        m_server->addTool(resolvingTool());
        m_session = initializedSession();
    }

    void cleanup()
    {
        m_server.reset();
        m_gate.reset();
        m_log.reset();
    }

    void initializeAgreesOnAVersion_data()
    {
        QTest::addColumn<QString>("asked");
        QTest::addColumn<QString>("agreed");
        QTest::newRow("2025-06-18") << "2025-06-18"
                                    << "2025-06-18";
        QTest::newRow("2025-03-26") << "2025-03-26"
                                    << "2025-03-26";
        QTest::newRow("2024-11-05") << "2024-11-05"
                                    << "2024-11-05";
        QTest::newRow("unknown: newest offered") << "2099-01-01"
                                                 << "2025-06-18";
    }

    void initializeAgreesOnAVersion()
    {
        QFETCH(QString, asked);
        QFETCH(QString, agreed);
        const QString session = m_server->openSession(QStringLiteral("http"));
        const auto answer =
            send(request(1, QStringLiteral("initialize"), initializeParams(asked)), session);
        QVERIFY(answer);
        const QJsonObject result = answer->value(QLatin1String("result")).toObject();
        QCOMPARE(answer->value(QLatin1String("id")).toInt(), 1);
        QCOMPARE(result.value(QLatin1String("protocolVersion")).toString(), agreed);
        QCOMPARE(result.value(QLatin1String("serverInfo"))
                     .toObject()
                     .value(QLatin1String("name"))
                     .toString(),
                 QStringLiteral("sandbox-workbench"));
        QCOMPARE(result.value(QLatin1String("capabilities")).toObject(),
                 (QJsonObject{
                     {QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}},
                     {QStringLiteral("resources"), QJsonObject()}}));
        const auto clients = m_server->clients();
        const auto client =
            std::find_if(clients.begin(), clients.end(),
                         [&](const sbw::McpClientInfo& c) { return c.sessionId == session; });
        QVERIFY(client != clients.end());
        QCOMPARE(client->name, QStringLiteral("claude-code"));
        QCOMPARE(client->version, QStringLiteral("2.0.1"));
        QCOMPARE(client->protocolVersion, agreed);
    }

    void requestsBeforeInitializeAreRefused()
    {
        const QString session = m_server->openSession(QStringLiteral("stdio"));
        auto answer = send(request(2, QStringLiteral("tools/list")), session);
        QVERIFY(answer);
        QCOMPARE(
            answer->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
            int(sbw::mcp::kInvalidRequest));
        answer = send(request(3, QStringLiteral("ping")), session); // ping is always allowed
        QVERIFY(answer);
        QCOMPARE(answer->value(QLatin1String("result")).toObject(), QJsonObject());
    }

    void errorsAreJsonRpcErrors_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<int>("code");
        QTest::addColumn<QJsonValue>("id");
        QTest::newRow("unknown method")
            << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"prompts/list"})")
            << int(sbw::mcp::kMethodNotFound) << QJsonValue(5);
        QTest::newRow("wrong version")
            << QByteArray(R"({"jsonrpc":"1.0","id":"a","method":"ping"})")
            << int(sbw::mcp::kInvalidRequest) << QJsonValue(QStringLiteral("a"));
        QTest::newRow("params not an object")
            << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"ping","params":[1]})")
            << int(sbw::mcp::kInvalidParams) << QJsonValue(6);
        QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")
                               << int(sbw::mcp::kInvalidRequest) << QJsonValue(QJsonValue::Null);
        QTest::newRow("unknown tool")
            << QByteArray(
                   R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"rm_rf"}})")
            << int(sbw::mcp::kInvalidParams) << QJsonValue(8);
        QTest::newRow("second initialize")
            << QByteArray(
                   R"({"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})")
            << int(sbw::mcp::kInvalidRequest) << QJsonValue(9);
    }

    void errorsAreJsonRpcErrors()
    {
        QFETCH(QByteArray, message);
        QFETCH(int, code);
        QFETCH(QJsonValue, id);
        const QJsonDocument document = QJsonDocument::fromJson(message);
        const auto answer =
            send(document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object()));
        QVERIFY(answer);
        QCOMPARE(answer->value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
        QCOMPARE(answer->value(QLatin1String("id")), id);
        QCOMPARE(
            answer->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
            code);
        QVERIFY(!answer->contains(QLatin1String("result")));
    }

    void notificationsGetNoAnswer()
    {
        bool answered = false;
        m_server->handle(
            m_session,
            QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/initialized")}},
            [&](const QJsonObject&) { answered = true; });
        QTest::qWait(50);
        QVERIFY(!answered);
    }

    void toolsListGivesSchemas()
    {
        const auto answer = send(request(4, QStringLiteral("tools/list")));
        QVERIFY(answer);
        const QJsonArray tools = answer->value(QLatin1String("result"))
                                     .toObject()
                                     .value(QLatin1String("tools"))
                                     .toArray();
        QCOMPARE(tools.size(), 4);
        const QJsonObject tool = tools.at(0).toObject();
        QCOMPARE(tool.value(QLatin1String("name")).toString(), QStringLiteral("echo"));
        QCOMPARE(tool.value(QLatin1String("inputSchema"))
                     .toObject()
                     .value(QLatin1String("type"))
                     .toString(),
                 QStringLiteral("object"));
        QVERIFY(tool.contains(QLatin1String("outputSchema")));
    }

    void allowedCallRunsAndIsLogged()
    {
        const QJsonObject result =
            call(QStringLiteral("echo"), {{QStringLiteral("text"), QStringLiteral("hi")}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), false);
        QCOMPARE(result.value(QLatin1String("structuredContent")).toObject(),
                 (QJsonObject{{QStringLiteral("text"), QStringLiteral("hi")}}));
        QCOMPARE(result.value(QLatin1String("content"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral(R"({"text":"hi"})"));
        QCOMPARE(m_gate->asked.size(), 1);
        QCOMPARE(m_gate->asked.at(0).actor.kind, sbw::Actor::Kind::Agent);
        QCOMPARE(m_gate->asked.at(0).actor.name, QStringLiteral("claude-code"));
        const auto rows = m_log->rows({});
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), 1);
        const sbw::ActionRecord row = rows->at(0);
        QCOMPARE(row.actor.display(), QStringLiteral("agent (claude-code)"));
        QCOMPARE(row.sandbox, QStringLiteral("demo"));
        QCOMPARE(row.command, QStringLiteral("hi"));
        QCOMPARE(row.outcome, sbw::Outcome::Succeeded);
        QCOMPARE(row.approval, sbw::Approval::Auto);
        QCOMPARE(row.stdoutBytes, 2);
        const auto clients = m_server->clients();
        QCOMPARE(clients.at(0).lastTool, QStringLiteral("echo"));
        QVERIFY(clients.at(0).lastCall.isValid());
    }

    /// A call that asks for progress (params._meta.progressToken) gets its notifications,
    /// counted from 1, before its answer; one that does not ask gets none.
    void progressComesBeforeTheAnswerWhenAskedFor()
    {
        const auto progress = [](int count, const QString& message) {
            return QJsonObject{
                {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                {QStringLiteral("method"), QStringLiteral("notifications/progress")},
                {QStringLiteral("params"), QJsonObject{{QStringLiteral("progressToken"), QStringLiteral("t-1")},
                                                       {QStringLiteral("progress"), count},
                                                       {QStringLiteral("message"), message}}}};
        };
        QJsonObject params{{QStringLiteral("name"), QStringLiteral("echo")},
                           {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("text"), QStringLiteral("hi")}}},
                           {QStringLiteral("_meta"), QJsonObject{{QStringLiteral("progressToken"), QStringLiteral("t-1")}}}};
        for (const bool asked : {true, false}) {
            if (!asked)
                params.remove(QStringLiteral("_meta"));
            QList<QJsonObject> messages;
            m_server->handle(m_session, request(8, QStringLiteral("tools/call"), params),
                             [&messages](const QJsonObject& message) { messages.append(message); });
            QVERIFY(QTest::qWaitFor(
                [&] { return !messages.isEmpty() && messages.last().contains(QLatin1String("id")); }, 5000));
            QCOMPARE(messages.size(), asked ? 3 : 1);
            if (asked) {
                QCOMPARE(messages[0], progress(1, QStringLiteral("started")));
                QCOMPARE(messages[1], progress(2, QStringLiteral("echoing hi")));
            }
            QCOMPARE(messages.last().value(QLatin1String("id")).toInt(), 8);
            QCOMPARE(messages.last().value(QLatin1String("result")).toObject().value(QLatin1String("isError")).toBool(), false);
        }
    }

    void deniedCallNeverRuns()
    {
        const QJsonObject result =
            call(QStringLiteral("echo"), {{QStringLiteral("text"), QStringLiteral("forbidden")}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(result.value(QLatin1String("content"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral("denied: not on my watch"));
        QVERIFY(!result.contains(QLatin1String("structuredContent")));
        // The denied action's row is the gate's (PolicyGate writes it); nothing ran.
        QCOMPARE(m_log->rows({})->size(), 0);
    }

    void waitingCallAnswersWhenDecided()
    {
        std::optional<QJsonObject> answer;
        m_server->handle(m_session,
                         request(9, QStringLiteral("tools/call"),
                                 {{QStringLiteral("name"), QStringLiteral("echo")},
                                  {QStringLiteral("arguments"),
                                   QJsonObject{{QStringLiteral("text"), QStringLiteral("wait")}}}}),
                         [&](const QJsonObject& reply) { answer = reply; });
        QTest::qWait(100);
        QVERIFY(!answer);
        QVERIFY(m_gate->waiting);
        m_gate->release(true);
        QTRY_VERIFY(answer.has_value());
        QCOMPARE(answer->value(QLatin1String("result"))
                     .toObject()
                     .value(QLatin1String("isError"))
                     .toBool(),
                 false);
        const auto rows = m_log->rows({});
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->at(0).approval, sbw::Approval::Approved);
        QCOMPARE(rows->at(0).approver, QStringLiteral("alice"));
    }

    void callApprovedAsPreviewedGetsThePreviewsResultAndRunsNothing()
    {
        std::optional<QJsonObject> answer;
        m_server->handle(m_session,
                         request(10, QStringLiteral("tools/call"),
                                 {{QStringLiteral("name"), QStringLiteral("echo")},
                                  {QStringLiteral("arguments"),
                                   QJsonObject{{QStringLiteral("text"), QStringLiteral("wait")}}}}),
                         [&](const QJsonObject& reply) { answer = reply; });
        QTRY_VERIFY(m_gate->waiting);
        sbw::GateDecision decision{true, sbw::Approval::Approved, QStringLiteral("alice"), {}, {}};
        decision.previewed = sbw::PreviewedOutcome{QStringLiteral("preview-0a1b2c"), 3, std::nullopt,
                                                   "made\n", "warned\n", 1200, {}};
        sbw::FileChange made;
        made.path = QStringLiteral("/root/made.txt");
        made.kind = sbw::ChangeKind::Created;
        made.typeAfter = 'f';
        made.sizeAfter = 5;
        decision.previewed->fileChanges.tracked = true;
        decision.previewed->fileChanges.files = {made};
        decision.previewed->fileChanges.created = 1;
        auto done = std::move(m_gate->waiting);
        done(decision);
        QTRY_VERIFY(answer.has_value());
        const QJsonObject result = answer->value(QLatin1String("result")).toObject();
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), false); // a status is a result
        // The preview's output, shaped as a command's; the tool itself (which echoes) never ran.
        const QJsonObject structured = result.value(QLatin1String("structuredContent")).toObject();
        QCOMPARE(structured.value(QLatin1String("stdout")).toString(), QStringLiteral("made\n"));
        QCOMPARE(structured.value(QLatin1String("stderr")).toString(), QStringLiteral("warned\n"));
        QCOMPARE(structured.value(QLatin1String("exit_status")).toInt(), 3);
        QCOMPARE(structured.value(QLatin1String("duration_ms")).toInt(), 1200);
        QVERIFY(!structured.contains(QLatin1String("text")));
        QCOMPARE(structured.value(QLatin1String("files_changed_summary")).toString(),
                 QStringLiteral("1 file changed (1 created, 0 modified, 0 deleted)"));
        QCOMPARE(structured.value(QLatin1String("files_changed")).toArray().size(), 1);
        const auto rows = m_log->rows({});
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->at(0).approval, sbw::Approval::Approved);
        QCOMPARE(rows->at(0).exitStatus, std::optional<int>(3));
        QCOMPARE(rows->at(0).stdoutBytes, 5);
        QCOMPARE(m_log->row(rows->at(0).id)->fileChanges.summary(),
                 QStringLiteral("1 file changed (1 created, 0 modified, 0 deleted)"));
        QCOMPARE(rows->at(0).error, QStringLiteral("approved as previewed: ran in fork preview-0a1b2c, which the workspace became"));
    }

    void badArgumentsAreToolErrors()
    {
        const QJsonObject result = call(QStringLiteral("echo"), {{QStringLiteral("text"), 3}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(result.value(QLatin1String("content"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral("bad arguments: text is required"));
        QVERIFY(m_gate->asked.isEmpty());
        const auto rows = m_log->rows({});
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->at(0).outcome, sbw::Outcome::Error);
        QCOMPARE(rows->at(0).error, QStringLiteral("bad arguments: text is required"));
    }

    /// A call's resources are listed and read in every session; unknown URIs and files that
    /// left the host are "Resource not found" with the URI; too big a file is an internal error.
    void callsOfferResourcesToRead()
    {
        auto list = send(request(20, QStringLiteral("resources/list")));
        QVERIFY(list);
        QCOMPARE(list->value(QLatin1String("result")).toObject(),
                 (QJsonObject{{QStringLiteral("resources"), QJsonArray()}}));
        auto templates = send(request(21, QStringLiteral("resources/templates/list")));
        QVERIFY(templates);
        QCOMPARE(templates->value(QLatin1String("result")).toObject(),
                 (QJsonObject{{QStringLiteral("resourceTemplates"), QJsonArray()}}));

        const QString text = m_dir.filePath(QStringLiteral("note.txt"));
        const QString binary = m_dir.filePath(QStringLiteral("seed.bin"));
        const QString gone = m_dir.filePath(QStringLiteral("gone.txt"));
        const QString big = m_dir.filePath(QStringLiteral("big.bin"));
        const QByteArray seed("\x00\xff\x01", 3);
        for (const auto& [path, bytes] :
             {std::pair{text, QByteArray("héllo\n")}, std::pair{binary, seed},
              std::pair{gone, QByteArray("x")}, std::pair{big, QByteArray()}}) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        }
        QVERIFY(QFile::resize(big, sbw::mcp::kMaxResourceReadBytes + 1));
        const QJsonObject result =
            call(QStringLiteral("files"),
                 {{QStringLiteral("files"), QJsonArray{text, binary, gone, big}}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), false);
        QVERIFY(QFile::remove(gone));

        // Another client sees them too.
        const QString other = initializedSession();
        list = send(request(22, QStringLiteral("resources/list")), other);
        QVERIFY(list);
        const QJsonArray listed = list->value(QLatin1String("result"))
                                      .toObject()
                                      .value(QLatin1String("resources"))
                                      .toArray();
        QCOMPARE(listed.size(), 4);
        QCOMPARE(
            listed.at(0).toObject(),
            (QJsonObject{{QStringLiteral("uri"), QStringLiteral("test://note.txt")},
                         {QStringLiteral("name"), QStringLiteral("note.txt")},
                         {QStringLiteral("description"), QStringLiteral("made by a test")},
                         {QStringLiteral("mimeType"), QStringLiteral("application/octet-stream")},
                         {QStringLiteral("size"), 7}}));
        QVERIFY(
            !list->value(QLatin1String("result")).toObject().contains(QLatin1String("nextCursor")));

        const auto read = [&](const QJsonValue& uri) {
            QJsonObject params;
            if (!uri.isUndefined())
                params.insert(QStringLiteral("uri"), uri);
            return send(request(23, QStringLiteral("resources/read"), params), other)
                .value_or(QJsonObject());
        };
        QCOMPARE(read(QStringLiteral("test://note.txt")).value(QLatin1String("result")).toObject(),
                 (QJsonObject{
                     {QStringLiteral("contents"),
                      QJsonArray{QJsonObject{
                          {QStringLiteral("uri"), QStringLiteral("test://note.txt")},
                          {QStringLiteral("mimeType"), QStringLiteral("application/octet-stream")},
                          {QStringLiteral("text"), QStringLiteral("héllo\n")}}}}}));
        const QJsonObject blob = read(QStringLiteral("test://seed.bin"))
                                     .value(QLatin1String("result"))
                                     .toObject()
                                     .value(QLatin1String("contents"))
                                     .toArray()
                                     .at(0)
                                     .toObject();
        QCOMPARE(blob.value(QLatin1String("blob")).toString(),
                 QString::fromLatin1(seed.toBase64()));
        QVERIFY(!blob.contains(QLatin1String("text")));

        const auto error = [&](const QJsonValue& uri) {
            const QJsonObject answer = read(uri);
            return answer.contains(QLatin1String("result"))
                       ? QJsonObject()
                       : answer.value(QLatin1String("error")).toObject();
        };
        const auto notFound = [](const QString& uri) {
            return QJsonObject{{QStringLiteral("code"), -32002},
                               {QStringLiteral("message"), QStringLiteral("Resource not found")},
                               {QStringLiteral("data"), QJsonObject{{QStringLiteral("uri"), uri}}}};
        };
        QCOMPARE(error(QStringLiteral("test://nothing")),
                 notFound(QStringLiteral("test://nothing")));
        QCOMPARE(error(QStringLiteral("test://gone.txt")),
                 notFound(QStringLiteral("test://gone.txt")));
        QCOMPARE(error(QStringLiteral("test://big.bin")),
                 (QJsonObject{{QStringLiteral("code"), int(sbw::mcp::kInternalError)},
                              {QStringLiteral("message"),
                               QStringLiteral("test://big.bin holds 16.0 MiB; resources/read "
                                              "returns files up to 16.0 MiB")}}));
        QCOMPARE(error(QJsonValue::Undefined).value(QLatin1String("message")).toString(),
                 QStringLiteral("params.uri must be a string"));
        QCOMPARE(error(3).value(QLatin1String("code")).toInt(), int(sbw::mcp::kInvalidParams));
    }

    /// Pages of 500 with cursors that stay valid while resources come; the oldest are forgotten
    /// beyond kMaxResources.
    void resourceListPagesAndForgetsTheOldest()
    {
        using sbw::mcp::McpResourceList;
        McpResourceList resources;
        const auto resource = [](int i) {
            return sbw::mcp::McpResource{
                QStringLiteral("test://%1").arg(i), QString::number(i), {}, {}, 0, {}};
        };
        QList<sbw::mcp::McpResource> batch;
        for (int i = 1; i <= 1201; ++i)
            batch.append(resource(i));
        resources.add(batch);
        auto first = resources.page(std::nullopt);
        QVERIFY(first.ok());
        QCOMPARE(first->value(QLatin1String("resources")).toArray().size(),
                 McpResourceList::kPageSize);
        const QString cursor = first->value(QLatin1String("nextCursor")).toString();
        QCOMPARE(cursor, QStringLiteral("500"));
        resources.add({resource(1202)});
        auto second = resources.page(cursor);
        QVERIFY(second.ok());
        QCOMPARE(second->value(QLatin1String("resources"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("uri"))
                     .toString(),
                 QStringLiteral("test://501"));
        auto third = resources.page(second->value(QLatin1String("nextCursor")).toString());
        QVERIFY(third.ok());
        QCOMPARE(third->value(QLatin1String("resources")).toArray().size(), 202);
        QVERIFY(!third->contains(QLatin1String("nextCursor")));
        QCOMPARE(resources.page(QStringLiteral("x")).error().message,
                 QStringLiteral("invalid cursor: x"));

        batch.clear();
        for (int i = 1203; i <= McpResourceList::kMaxResources + 1; ++i)
            batch.append(resource(i));
        resources.add(batch);
        QCOMPARE(resources.size(), McpResourceList::kMaxResources);
        QVERIFY(!resources.find(QStringLiteral("test://1")));
        QVERIFY(resources.find(QStringLiteral("test://2")));
        // A URI offered again moves to the end, once.
        resources.add({resource(2)});
        QCOMPARE(resources.size(), McpResourceList::kMaxResources);
    }

    /// Starts a call of `tool` with request id `id`; returns where its answer will go.
    std::shared_ptr<std::optional<QJsonObject>> startCall(int id, const QString& tool,
                                                          const QJsonObject& arguments)
    {
        auto answer = std::make_shared<std::optional<QJsonObject>>();
        m_server->handle(
            m_session,
            request(id, QStringLiteral("tools/call"),
                    {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}}),
            [answer](const QJsonObject& reply) { *answer = reply; });
        return answer;
    }

    /// Starts a `block` call with request id `id`; returns where its answer will go.
    std::shared_ptr<std::optional<QJsonObject>>
    startBlock(int id, const QString& text = QStringLiteral("sleep 60"))
    {
        return startCall(id, QStringLiteral("block"), {{QStringLiteral("text"), text}});
    }

    /// The only row of the log once it ended.
    sbw::ActionRecord endedRow()
    {
        std::optional<sbw::ActionRecord> row;
        (void)QTest::qWaitFor(
            [&] {
                auto rows = m_log->rows({});
                if (rows.ok() && rows->size() == 1 && rows->at(0).outcome != sbw::Outcome::Running)
                    row = rows->at(0);
                return row.has_value();
            },
            5000);
        return row.value_or(sbw::ActionRecord{});
    }

    void cancelledCallStopsAndIsNotAnswered_data()
    {
        QTest::addColumn<QJsonValue>("id");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("error");
        QTest::newRow("number id, reason")
            << QJsonValue(11) << QStringLiteral("the user pressed stop")
            << QStringLiteral("cancelled by the client (agent claude-code): the user pressed stop");
        QTest::newRow("string id, no reason")
            << QJsonValue(QStringLiteral("call-a")) << QString()
            << QStringLiteral("cancelled by the client (agent claude-code)");
    }

    void cancelledCallStopsAndIsNotAnswered()
    {
        QFETCH(QJsonValue, id);
        QFETCH(QString, reason);
        QFETCH(QString, error);
        auto answer = std::make_shared<std::optional<QJsonObject>>();
        QJsonObject message =
            request(0, QStringLiteral("tools/call"),
                    {{QStringLiteral("name"), QStringLiteral("block")},
                     {QStringLiteral("arguments"),
                      QJsonObject{{QStringLiteral("text"), QStringLiteral("sleep 60")}}}});
        message.insert(QStringLiteral("id"), id);
        m_server->handle(m_session, message,
                         [answer](const QJsonObject& reply) { *answer = reply; });
        QTRY_VERIFY(g_blockRunning);
        // A cancel for another id, or from another session, stops nothing.
        QJsonObject params{{QStringLiteral("requestId"), 12345}};
        const auto notification = [](const QJsonObject& params) {
            return QJsonObject{
                {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                {QStringLiteral("params"), params}};
        };
        bool notificationAnswered = false;
        const auto noAnswer = [&](const QJsonObject&) { notificationAnswered = true; };
        m_server->handle(m_session, notification(params), noAnswer);
        params.insert(QStringLiteral("requestId"), id);
        m_server->handle(initializedSession(), notification(params), noAnswer);
        QTest::qWait(100);
        QVERIFY(g_blockRunning);
        if (!reason.isEmpty())
            params.insert(QStringLiteral("reason"), reason);
        m_server->handle(m_session, notification(params), noAnswer);
        QTRY_VERIFY(!g_blockRunning);
        const sbw::ActionRecord row = endedRow();
        QCOMPARE(row.outcome, sbw::Outcome::Cancelled);
        QCOMPARE(row.error, error);
        QCOMPARE(row.signal, std::optional<int>(9));
        QCOMPARE(row.stdoutBytes, 8);
        QTest::qWait(200); // the answer would have been queued by now
        QVERIFY(!answer->has_value());
        QVERIFY(!notificationAnswered);
        // The session goes on.
        QCOMPARE(call(QStringLiteral("echo"), {{QStringLiteral("text"), QStringLiteral("hi")}})
                     .value(QLatin1String("isError"))
                     .toBool(),
                 false);
    }

    void closedSessionCancelsItsCalls()
    {
        auto answer = startBlock(13);
        QTRY_VERIFY(g_blockRunning);
        m_server->closeSession(m_session, QStringLiteral("disconnected from the Agents pane"));
        QTRY_VERIFY(!g_blockRunning);
        const sbw::ActionRecord row = endedRow();
        QCOMPARE(row.outcome, sbw::Outcome::Cancelled);
        QCOMPARE(row.error, QStringLiteral("cancelled: the client (agent claude-code) went away: "
                                           "disconnected from the Agents pane"));
        QTest::qWait(200);
        QVERIFY(!answer->has_value());
    }

    /// A call that ran to its end keeps its outcome, even when nobody gets the answer.
    void callThatEndedBeforeTheCancelKeepsItsOutcome()
    {
        const QJsonObject result =
            call(QStringLiteral("echo"), {{QStringLiteral("text"), QStringLiteral("hi")}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), false);
        m_server->handle(
            m_session,
            QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                        {QStringLiteral("params"), QJsonObject{{QStringLiteral("requestId"), 7}}}},
            [](const QJsonObject&) {});
        QCOMPARE(endedRow().outcome, sbw::Outcome::Succeeded);
        QCOMPARE(endedRow().error, QString());
    }

    /// The stdio transport: the end of stdin cancels the running call; nothing is written for it.
    void endOfStdinCancels()
    {
        int in[2];
        int out[2];
        QVERIFY(::pipe2(in, O_CLOEXEC) == 0);
        QVERIFY(::pipe2(out, O_CLOEXEC | O_NONBLOCK) == 0);
        sbw::McpStdioTransport transport(m_server.get(), in[0], out[1]);
        QSignalSpy finished(&transport, &sbw::McpStdioTransport::finished);
        transport.start();
        const QByteArray lines =
            QJsonDocument(request(1, QStringLiteral("initialize"),
                                  initializeParams(QStringLiteral("2025-06-18"))))
                .toJson(QJsonDocument::Compact) +
            '\n' +
            QJsonDocument(
                request(2, QStringLiteral("tools/call"),
                        {{QStringLiteral("name"), QStringLiteral("block")},
                         {QStringLiteral("arguments"),
                          QJsonObject{{QStringLiteral("text"), QStringLiteral("sleep 60")}}}}))
                .toJson(QJsonDocument::Compact) +
            '\n';
        QCOMPARE(::write(in[1], lines.constData(), lines.size()), lines.size());
        QTRY_VERIFY(g_blockRunning);
        ::close(in[1]);
        QTRY_COMPARE(finished.size(), 1);
        QTRY_VERIFY(!g_blockRunning);
        const sbw::ActionRecord row = endedRow();
        QCOMPARE(row.outcome, sbw::Outcome::Cancelled);
        QCOMPARE(row.error, QStringLiteral("cancelled: the client (agent claude-code) went away: "
                                           "it closed its input (stdin)"));
        QTest::qWait(200);
        char buffer[65536];
        const ssize_t n = ::read(out[0], buffer, sizeof buffer);
        QVERIFY(n > 0);
        const QList<QByteArray> written = QByteArray(buffer, n).trimmed().split('\n');
        QCOMPARE(written.size(), 1); // the answer to initialize, none for the call
        QCOMPARE(QJsonDocument::fromJson(written.at(0)).object().value(QLatin1String("id")).toInt(),
                 1);
        ::close(in[0]);
        ::close(out[0]);
        ::close(out[1]);
    }

    /// A call waiting for a person that is cancelled leaves the queue, never runs, is not answered.
    void cancelWhileWaitingWithdrawsIt()
    {
        QSignalSpy added(&m_gate->queue, &sbw::ApprovalQueue::added);
        auto answer = startBlock(14, QStringLiteral("ask a person"));
        QCOMPARE(added.size(), 1);
        QCOMPARE(m_gate->queue.pending().size(), 1);
        m_server->handle(
            m_session,
            QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                        {QStringLiteral("params"),
                         QJsonObject{{QStringLiteral("requestId"), 14},
                                     {QStringLiteral("reason"), QStringLiteral("too slow")}}}},
            [](const QJsonObject&) {});
        QVERIFY(m_gate->queue.pending().isEmpty());
        QCOMPARE(m_gate->decisions.size(), 1);
        QCOMPARE(m_gate->decisions.at(0).allowed, false);
        QCOMPARE(m_gate->decisions.at(0).reason,
                 QStringLiteral("cancelled by the client (agent claude-code): too slow"));
        QTest::qWait(200);
        QVERIFY(!g_blockRunning);
        QVERIFY(!answer->has_value());
        QCOMPARE(m_log->rows({})->size(), 0); // the gate's row (PolicyGate writes one); nothing ran
        // Going away does the same.
        startBlock(15, QStringLiteral("ask a person"));
        QCOMPARE(m_gate->queue.pending().size(), 1);
        m_server->closeSession(m_session, QStringLiteral("it closed its input (stdin)"));
        QVERIFY(m_gate->queue.pending().isEmpty());
        QCOMPARE(m_gate->decisions.at(1).reason,
                 QStringLiteral("cancelled: the client (agent claude-code) went away: it closed "
                                "its input (stdin)"));
    }

    /// The resolution step runs on a worker before the gate: the gate, the row and the tool see
    /// the resolved path; a failed resolution is a tool error that never reaches the gate.
    void resolvedPathIsWhatTheGateSees()
    {
        auto answer = startCall(16, QStringLiteral("resolving"),
                                {{QStringLiteral("path"), QStringLiteral("/root/link/x")}});
        QVERIFY(!answer->has_value()); // the server's thread did not wait for the guest
        QVERIFY(m_gate->asked.isEmpty());
        QTRY_VERIFY(answer->has_value());
        QCOMPARE(m_gate->asked.size(), 1);
        QCOMPARE(m_gate->asked.at(0).path, QStringLiteral("/etc/x"));
        const QJsonObject result = (*answer)->value(QLatin1String("result")).toObject();
        QCOMPARE(result.value(QLatin1String("structuredContent"))
                     .toObject()
                     .value(QLatin1String("path"))
                     .toString(),
                 QStringLiteral("/etc/x"));
        QCOMPARE(endedRow().command, QStringLiteral("/etc/x"));

        answer = startCall(17, QStringLiteral("resolving"),
                           {{QStringLiteral("path"), QStringLiteral("/root/loop")}});
        QTRY_VERIFY(answer->has_value());
        QCOMPARE(m_gate->asked.size(), 1);
        const QJsonObject failed = (*answer)->value(QLatin1String("result")).toObject();
        QCOMPARE(failed.value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(failed.value(QLatin1String("content"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral(
                     "cannot resolve /root/loop in the guest: Too many levels of symbolic links"));
    }

    /// A call cancelled while its path resolves never reaches the gate; its row says cancelled.
    void cancelWhileResolvingDropsIt()
    {
        auto answer = startCall(18, QStringLiteral("resolving"),
                                {{QStringLiteral("path"), QStringLiteral("/root/a")}});
        m_server->handle(
            m_session,
            QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                        {QStringLiteral("params"), QJsonObject{{QStringLiteral("requestId"), 18}}}},
            [](const QJsonObject&) {});
        const sbw::ActionRecord row = endedRow();
        QCOMPARE(row.outcome, sbw::Outcome::Cancelled);
        QCOMPARE(row.command, QStringLiteral("/root/a"));
        QCOMPARE(row.error, QStringLiteral("cancelled by the client (agent claude-code)"));
        QTest::qWait(500); // the resolve step (300 ms) has ended: it must not go on to the gate
        QVERIFY(m_gate->asked.isEmpty());
        QVERIFY(!answer->has_value());
    }

    /// 2025-06-18 clients get a big value once, in structuredContent; older ones (which do not
    /// know structuredContent) once, in the text block.
    void bigValuesTravelOnce()
    {
        const QJsonObject result = call(QStringLiteral("resolving"),
                                        {{QStringLiteral("path"), QStringLiteral("/root/a")}});
        QCOMPARE(result.value(QLatin1String("structuredContent")).toObject(),
                 (QJsonObject{{QStringLiteral("path"), QStringLiteral("/root/a")},
                              {QStringLiteral("content"), QStringLiteral("big")}}));
        QCOMPARE(
            result.value(QLatin1String("content"))
                .toArray()
                .at(0)
                .toObject()
                .value(QLatin1String("text"))
                .toString(),
            QStringLiteral(R"j({"content":"(in structuredContent.content)","path":"/root/a"})j"));

        m_session = m_server->openSession(QStringLiteral("stdio"));
        send(request(1, QStringLiteral("initialize"),
                     initializeParams(QStringLiteral("2025-03-26"))));
        const QJsonObject old = call(QStringLiteral("resolving"),
                                     {{QStringLiteral("path"), QStringLiteral("/root/a")}});
        QVERIFY(!old.contains(QLatin1String("structuredContent")));
        QCOMPARE(old.value(QLatin1String("content"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral(R"({"content":"big","path":"/root/a"})"));
    }

    /// A reply holds up to the cap of each stream, cut at a whole character, with a note that
    /// names the cap and the row with the whole output; the sizes are the whole streams'.
    void commandOutputIsCapped()
    {
        sbw::McpCommandOutput output(8);
        output.add(sbw::OutputStream::Stdout, "abcdef");
        output.add(sbw::OutputStream::Stdout, "g\xc3\xa9h"); // é across the cap
        output.add(sbw::OutputStream::Stderr, "12345678");
        sbw::ExecStatus status;
        status.exitStatus = 0;
        const QJsonObject cut = output.structured(status, 5, 42);
        QCOMPARE(cut.value(QLatin1String("stdout")).toString(), QStringLiteral("abcdefg"));
        QCOMPARE(cut.value(QLatin1String("stdout_bytes")).toInt(), 10);
        QCOMPARE(cut.value(QLatin1String("stderr")).toString(), QStringLiteral("12345678"));
        QCOMPARE(cut.value(QLatin1String("stderr_bytes")).toInt(), 8);
        QCOMPARE(cut.value(QLatin1String("exit_status")).toInt(), 0);
        QCOMPARE(
            cut.value(QLatin1String("output_note")).toString(),
            QStringLiteral(
                "stdout has 10 bytes; this reply holds its first 7 (the cap is 8 bytes a stream); "
                "the whole "
                "of it is in row 42 of the command log: sbw log --output 42 --stream stdout"));
        sbw::McpCommandOutput whole;
        whole.add(sbw::OutputStream::Stdout, "hi\n");
        QCOMPARE(whole.structured(status, 1, 3).value(QLatin1String("output_note")).toString(),
                 QString());
        QCOMPARE(sbw::McpCommandOutput::kReplyBytes, qint64(1) << 20);
    }

    void closedSessionIsForgotten()
    {
        QSignalSpy closed(m_server.get(), &sbw::McpServer::sessionClosed);
        m_server->closeSession(m_session);
        QCOMPARE(closed.size(), 1);
        QVERIFY(!m_server->hasSession(m_session));
        QVERIFY(m_server->clients().isEmpty());
        const auto answer = send(request(10, QStringLiteral("ping")));
        QVERIFY(answer);
        QCOMPARE(
            answer->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
            int(sbw::mcp::kInvalidRequest));
    }
};

QTEST_GUILESS_MAIN(TestMcpServer)
#include "tst_mcpserver.moc"
