// MCP messages from an agent (McpServer::handle after the transports' JSON parsing), with a
// gate that denies every call and one tool that only reads its arguments the way the
// workbench's tools do (mcp::Arguments, run_code's files): nothing can reach a guest.
//
// Input: newline-delimited JSON-RPC messages, as McpStdioTransport reads them, in one session
// that the harness initializes first (a message may initialize it again).

#include "FuzzCheck.h"
#include "action/ActionGate.h"
#include "mcp/McpJsonRpc.h"
#include "mcp/McpRunFiles.h"
#include "mcp/McpServer.h"
#include "mcp/McpToolSchema.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <cstddef>
#include <cstdint>

namespace {

class DenyEverything : public sbw::ActionGate
{
public:
    void decide(const sbw::ActionRequest&, Done done) override
    {
        sbw::GateDecision decision;
        decision.approval = sbw::Approval::Denied;
        decision.reason = QStringLiteral("fuzzing");
        done(decision);
    }
};

/// Reads the arguments of exec and run_code; its run() must never be reached.
sbw::McpTool argumentsTool()
{
    sbw::McpTool tool;
    tool.name = QStringLiteral("exec");
    tool.inputSchema = sbw::mcp::objectSchema(
        {{QStringLiteral("command"), sbw::mcp::stringSchema(QStringLiteral("command"))}},
        {QStringLiteral("command")});
    tool.prepare = [](const QJsonObject& json) -> sbw::Expected<sbw::ActionRequest> {
        const sbw::mcp::Arguments arguments(json);
        auto command = arguments.requiredString(QStringLiteral("command"));
        if (!command)
            return command.error();
        auto timeout = arguments.integer(QStringLiteral("timeout_seconds"), 60, 1, 3600);
        if (!timeout)
            return timeout.error();
        auto language = arguments.choice(QStringLiteral("language"),
                                         {QStringLiteral("python"), QStringLiteral("sh")},
                                         QStringLiteral("python"));
        if (!language)
            return language.error();
        auto files = sbw::mcp::parseRunInputFiles(json.value(QLatin1String("files")));
        if (!files)
            return files.error();
        sbw::ActionRequest request;
        request.command = command.value();
        request.language = language.value();
        request.inputFiles = files.value();
        return request;
    };
    tool.run = [](const sbw::McpCall&) -> sbw::McpToolResult {
        SBW_FUZZ_CHECK(false, "a denied call never runs");
        return {};
    };
    return tool;
}

struct Harness
{
    DenyEverything gate;
    sbw::McpServer server{&gate, nullptr};

    Harness() { server.addTool(argumentsTool()); }
};

/// Handles one line as McpStdioTransport does and counts the answers.
int handleLine(Harness& harness, const QString& session, const QByteArray& line)
{
    int answers = 0;
    const auto reply = [&](const QJsonObject& message) {
        ++answers;
        SBW_FUZZ_CHECK(message.value(QLatin1String("jsonrpc")).toString() == QLatin1String("2.0"),
                       "every answer is JSON-RPC 2.0");
        (void)QJsonDocument(message).toJson(QJsonDocument::Compact);
    };
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError) {
        reply(sbw::mcp::errorMessage(QJsonValue::Null, sbw::mcp::kParseError, error.errorString()));
        return answers;
    }
    const QJsonValue message =
        document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
    harness.server.handle(session, message, reply);
    if (sbw::mcp::isRequest(message))
        SBW_FUZZ_CHECK(answers == 1, "a request is answered exactly once, at once here");
    if (sbw::mcp::isNotification(message))
        SBW_FUZZ_CHECK(answers == 0, "a notification is never answered");
    return answers;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    static QCoreApplication app(*argc, *argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static Harness harness;
    const QString session = harness.server.openSession(QStringLiteral("stdio"));
    handleLine(harness, session,
               R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":)"
               R"("2025-06-18","clientInfo":{"name":"fuzz","version":"1"}}})");
    const QByteArray input(reinterpret_cast<const char*>(data), qsizetype(size));
    for (const QByteArray& line : input.split('\n'))
        if (!line.trimmed().isEmpty())
            handleLine(harness, session, line);
    harness.server.closeSession(session);
    return 0;
}
