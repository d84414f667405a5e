// McpServer's JSON-RPC dispatch without a transport or a guest: initialize and version
// negotiation, ping, tools/list, tools/call through a gate (allowed, denied, waiting), errors,
// and the resources that calls produce (resources/list pages, resources/read, its errors).

#include "ActionGate.h"
#include "CommandLog.h"
#include "LoggedAction.h"
#include "McpJsonRpc.h"
#include "McpServer.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

namespace {

/// Test-only gate: denies commands containing "forbidden", keeps commands containing "wait"
/// until release(), allows everything else.
class TestGate : public sbw::ActionGate
{
public:
    void decide(const sbw::ActionRequest& request, Done done) override
    {
        asked.append(request);
        if (request.command.contains(QLatin1String("forbidden"))) {
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
};

/// A tool that echoes its text argument (runs on the server's worker thread).
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
        call.log->output(sbw::OutputStream::Stdout, call.request.command.toUtf8());
        sbw::McpToolResult result;
        result.structured = {{QStringLiteral("text"), call.request.command}};
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
        request.command = arguments.value(QLatin1String("files")).toVariant().toStringList().join(QLatin1Char(' '));
        return request;
    };
    tool.run = [](const sbw::McpCall& call) {
        sbw::McpToolResult result;
        for (const QString& path : call.request.command.split(QLatin1Char(' '))) {
            const QString name = path.section(QLatin1Char('/'), -1);
            result.resources.append({QStringLiteral("test://") + name, name, QStringLiteral("made by a test"),
                                     QStringLiteral("application/octet-stream"), QFileInfo(path).size(), path});
        }
        return result;
    };
    return tool;
}

QJsonObject request(int id, const QString& method, const QJsonObject& params = {})
{
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    return message;
}

QJsonObject initializeParams(const QString& version)
{
    return {{QStringLiteral("protocolVersion"), version},
            {QStringLiteral("capabilities"), QJsonObject{}},
            {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-code")},
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
        send(request(1, QStringLiteral("initialize"), initializeParams(QStringLiteral("2025-06-18"))), session);
        return session;
    }

    QJsonObject call(const QString& tool, const QJsonObject& arguments)
    {
        auto answer = send(request(7, QStringLiteral("tools/call"),
                                   {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}}));
        return answer ? answer->value(QLatin1String("result")).toObject() : QJsonObject();
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        auto log = sbw::CommandLog::open(m_dir.filePath(QStringLiteral("log-%1.sqlite").arg(QTest::currentTestFunction())));
        QVERIFY(log.ok());
        m_log = log.value();
        m_gate = std::make_unique<TestGate>();
        m_server = std::make_unique<sbw::McpServer>(m_gate.get(), m_log);
        m_server->addTool(echoTool());
        m_server->addTool(filesTool());
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
        QTest::newRow("2025-06-18") << "2025-06-18" << "2025-06-18";
        QTest::newRow("2025-03-26") << "2025-03-26" << "2025-03-26";
        QTest::newRow("2024-11-05") << "2024-11-05" << "2024-11-05";
        QTest::newRow("unknown: newest offered") << "2099-01-01" << "2025-06-18";
    }

    void initializeAgreesOnAVersion()
    {
        QFETCH(QString, asked);
        QFETCH(QString, agreed);
        const QString session = m_server->openSession(QStringLiteral("http"));
        const auto answer = send(request(1, QStringLiteral("initialize"), initializeParams(asked)), session);
        QVERIFY(answer);
        const QJsonObject result = answer->value(QLatin1String("result")).toObject();
        QCOMPARE(answer->value(QLatin1String("id")).toInt(), 1);
        QCOMPARE(result.value(QLatin1String("protocolVersion")).toString(), agreed);
        QCOMPARE(result.value(QLatin1String("serverInfo")).toObject().value(QLatin1String("name")).toString(),
                 QStringLiteral("sandbox-workbench"));
        QCOMPARE(result.value(QLatin1String("capabilities")).toObject(),
                 (QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}},
                              {QStringLiteral("resources"), QJsonObject()}}));
        const auto clients = m_server->clients();
        const auto client = std::find_if(clients.begin(), clients.end(),
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
        QCOMPARE(answer->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
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
        QTest::newRow("unknown method") << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"prompts/list"})")
                                        << int(sbw::mcp::kMethodNotFound) << QJsonValue(5);
        QTest::newRow("wrong version") << QByteArray(R"({"jsonrpc":"1.0","id":"a","method":"ping"})")
                                       << int(sbw::mcp::kInvalidRequest) << QJsonValue(QStringLiteral("a"));
        QTest::newRow("params not an object") << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"ping","params":[1]})")
                                              << int(sbw::mcp::kInvalidParams) << QJsonValue(6);
        QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")
                               << int(sbw::mcp::kInvalidRequest) << QJsonValue(QJsonValue::Null);
        QTest::newRow("unknown tool")
            << QByteArray(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"rm_rf"}})")
            << int(sbw::mcp::kInvalidParams) << QJsonValue(8);
        QTest::newRow("second initialize")
            << QByteArray(R"({"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})")
            << int(sbw::mcp::kInvalidRequest) << QJsonValue(9);
    }

    void errorsAreJsonRpcErrors()
    {
        QFETCH(QByteArray, message);
        QFETCH(int, code);
        QFETCH(QJsonValue, id);
        const QJsonDocument document = QJsonDocument::fromJson(message);
        const auto answer = send(document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object()));
        QVERIFY(answer);
        QCOMPARE(answer->value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
        QCOMPARE(answer->value(QLatin1String("id")), id);
        QCOMPARE(answer->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(), code);
        QVERIFY(!answer->contains(QLatin1String("result")));
    }

    void notificationsGetNoAnswer()
    {
        bool answered = false;
        m_server->handle(m_session, QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                                {QStringLiteral("method"), QStringLiteral("notifications/initialized")}},
                         [&](const QJsonObject&) { answered = true; });
        QTest::qWait(50);
        QVERIFY(!answered);
    }

    void toolsListGivesSchemas()
    {
        const auto answer = send(request(4, QStringLiteral("tools/list")));
        QVERIFY(answer);
        const QJsonArray tools = answer->value(QLatin1String("result")).toObject().value(QLatin1String("tools")).toArray();
        QCOMPARE(tools.size(), 2);
        const QJsonObject tool = tools.at(0).toObject();
        QCOMPARE(tool.value(QLatin1String("name")).toString(), QStringLiteral("echo"));
        QCOMPARE(tool.value(QLatin1String("inputSchema")).toObject().value(QLatin1String("type")).toString(),
                 QStringLiteral("object"));
        QVERIFY(tool.contains(QLatin1String("outputSchema")));
    }

    void allowedCallRunsAndIsLogged()
    {
        const QJsonObject result = call(QStringLiteral("echo"), {{QStringLiteral("text"), QStringLiteral("hi")}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), false);
        QCOMPARE(result.value(QLatin1String("structuredContent")).toObject(),
                 (QJsonObject{{QStringLiteral("text"), QStringLiteral("hi")}}));
        QCOMPARE(result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString(),
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

    void deniedCallNeverRuns()
    {
        const QJsonObject result = call(QStringLiteral("echo"), {{QStringLiteral("text"), QStringLiteral("forbidden")}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString(),
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
                                  {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("text"), QStringLiteral("wait")}}}}),
                         [&](const QJsonObject& reply) { answer = reply; });
        QTest::qWait(100);
        QVERIFY(!answer);
        QVERIFY(m_gate->waiting);
        m_gate->release(true);
        QTRY_VERIFY(answer.has_value());
        QCOMPARE(answer->value(QLatin1String("result")).toObject().value(QLatin1String("isError")).toBool(), false);
        const auto rows = m_log->rows({});
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->at(0).approval, sbw::Approval::Approved);
        QCOMPARE(rows->at(0).approver, QStringLiteral("alice"));
    }

    void badArgumentsAreToolErrors()
    {
        const QJsonObject result = call(QStringLiteral("echo"), {{QStringLiteral("text"), 3}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), true);
        QCOMPARE(result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString(),
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
        for (const auto& [path, bytes] : {std::pair{text, QByteArray("héllo\n")}, std::pair{binary, seed},
                                          std::pair{gone, QByteArray("x")}, std::pair{big, QByteArray()}}) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        }
        QVERIFY(QFile::resize(big, sbw::mcp::kMaxResourceReadBytes + 1));
        const QJsonObject result = call(QStringLiteral("files"), {{QStringLiteral("files"), QJsonArray{text, binary, gone, big}}});
        QCOMPARE(result.value(QLatin1String("isError")).toBool(), false);
        QVERIFY(QFile::remove(gone));

        // Another client sees them too.
        const QString other = initializedSession();
        list = send(request(22, QStringLiteral("resources/list")), other);
        QVERIFY(list);
        const QJsonArray listed = list->value(QLatin1String("result")).toObject().value(QLatin1String("resources")).toArray();
        QCOMPARE(listed.size(), 4);
        QCOMPARE(listed.at(0).toObject(), (QJsonObject{{QStringLiteral("uri"), QStringLiteral("test://note.txt")},
                                                       {QStringLiteral("name"), QStringLiteral("note.txt")},
                                                       {QStringLiteral("description"), QStringLiteral("made by a test")},
                                                       {QStringLiteral("mimeType"), QStringLiteral("application/octet-stream")},
                                                       {QStringLiteral("size"), 7}}));
        QVERIFY(!list->value(QLatin1String("result")).toObject().contains(QLatin1String("nextCursor")));

        const auto read = [&](const QJsonValue& uri) {
            QJsonObject params;
            if (!uri.isUndefined())
                params.insert(QStringLiteral("uri"), uri);
            return send(request(23, QStringLiteral("resources/read"), params), other).value_or(QJsonObject());
        };
        QCOMPARE(read(QStringLiteral("test://note.txt")).value(QLatin1String("result")).toObject(),
                 (QJsonObject{{QStringLiteral("contents"),
                               QJsonArray{QJsonObject{{QStringLiteral("uri"), QStringLiteral("test://note.txt")},
                                                      {QStringLiteral("mimeType"), QStringLiteral("application/octet-stream")},
                                                      {QStringLiteral("text"), QStringLiteral("héllo\n")}}}}}));
        const QJsonObject blob = read(QStringLiteral("test://seed.bin")).value(QLatin1String("result")).toObject()
                                     .value(QLatin1String("contents")).toArray().at(0).toObject();
        QCOMPARE(blob.value(QLatin1String("blob")).toString(), QString::fromLatin1(seed.toBase64()));
        QVERIFY(!blob.contains(QLatin1String("text")));

        const auto error = [&](const QJsonValue& uri) {
            const QJsonObject answer = read(uri);
            return answer.contains(QLatin1String("result")) ? QJsonObject() : answer.value(QLatin1String("error")).toObject();
        };
        const auto notFound = [](const QString& uri) {
            return QJsonObject{{QStringLiteral("code"), -32002},
                               {QStringLiteral("message"), QStringLiteral("Resource not found")},
                               {QStringLiteral("data"), QJsonObject{{QStringLiteral("uri"), uri}}}};
        };
        QCOMPARE(error(QStringLiteral("test://nothing")), notFound(QStringLiteral("test://nothing")));
        QCOMPARE(error(QStringLiteral("test://gone.txt")), notFound(QStringLiteral("test://gone.txt")));
        QCOMPARE(error(QStringLiteral("test://big.bin")),
                 (QJsonObject{{QStringLiteral("code"), int(sbw::mcp::kInternalError)},
                              {QStringLiteral("message"),
                               QStringLiteral("test://big.bin holds 16.0 MiB; resources/read returns files up to 16.0 MiB")}}));
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
            return sbw::mcp::McpResource{QStringLiteral("test://%1").arg(i), QString::number(i), {}, {}, 0, {}};
        };
        QList<sbw::mcp::McpResource> batch;
        for (int i = 1; i <= 1201; ++i)
            batch.append(resource(i));
        resources.add(batch);
        auto first = resources.page(std::nullopt);
        QVERIFY(first.ok());
        QCOMPARE(first->value(QLatin1String("resources")).toArray().size(), McpResourceList::kPageSize);
        const QString cursor = first->value(QLatin1String("nextCursor")).toString();
        QCOMPARE(cursor, QStringLiteral("500"));
        resources.add({resource(1202)});
        auto second = resources.page(cursor);
        QVERIFY(second.ok());
        QCOMPARE(second->value(QLatin1String("resources")).toArray().at(0).toObject().value(QLatin1String("uri")).toString(),
                 QStringLiteral("test://501"));
        auto third = resources.page(second->value(QLatin1String("nextCursor")).toString());
        QVERIFY(third.ok());
        QCOMPARE(third->value(QLatin1String("resources")).toArray().size(), 202);
        QVERIFY(!third->contains(QLatin1String("nextCursor")));
        QCOMPARE(resources.page(QStringLiteral("x")).error().message, QStringLiteral("invalid cursor: x"));

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

    void closedSessionIsForgotten()
    {
        QSignalSpy closed(m_server.get(), &sbw::McpServer::sessionClosed);
        m_server->closeSession(m_session);
        QCOMPARE(closed.size(), 1);
        QVERIFY(!m_server->hasSession(m_session));
        QVERIFY(m_server->clients().isEmpty());
        const auto answer = send(request(10, QStringLiteral("ping")));
        QVERIFY(answer);
        QCOMPARE(answer->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
                 int(sbw::mcp::kInvalidRequest));
    }
};

QTEST_GUILESS_MAIN(TestMcpServer)
#include "tst_mcpserver.moc"
