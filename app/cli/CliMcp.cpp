#include "CliMcp.h"

#include "approval/HeadlessGate.h"
#include "approval/Policy.h"
#include "approval/PolicyGate.h"
#include "egress/EgressProxy.h"
#include "base/TerminationSignals.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "mcp/McpHttpAccess.h"
#include "mcp/McpHttpTransport.h"
#include "mcp/McpNetworkTool.h"
#include "mcp/McpServer.h"
#include "mcp/McpStdioTransport.h"
#include "mcp/McpTools.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <optional>
#include <unistd.h>

namespace sbw {
namespace {

constexpr int kUsageError = 2;
constexpr int kWorkbenchError = 125;

int fail(const QString& message, int code = kWorkbenchError)
{
    std::fprintf(stderr, "sbw: %s%s\n", code == kWorkbenchError ? "error: " : "", qPrintable(message));
    return code;
}

/// What both commands share: options, the connection, the log, the gate and the server.
class Headless
{
public:
    explicit Headless(const QString& synopsis) : m_synopsis(synopsis)
    {
        m_parser.addHelpOption();
        m_parser.addOptions({m_policy, m_connect});
    }
    QCommandLineParser& parser() { return m_parser; }

    std::optional<int> parse(const QStringList& arguments)
    {
        if (!m_parser.parse(arguments))
            return fail(m_parser.errorText() + QStringLiteral(" (usage: %1)").arg(m_synopsis), kUsageError);
        if (m_parser.isSet(QStringLiteral("help"))) {
            std::printf("usage: %s\n", qPrintable(m_synopsis));
            return 0;
        }
        if (!m_parser.positionalArguments().isEmpty())
            return fail(QStringLiteral("usage: %1").arg(m_synopsis), kUsageError);
        return std::nullopt;
    }

    /// Opens the log, makes the gate and the server; a termination signal quits the event
    /// loop from then on. Errors: a bad policy file.
    std::optional<int> start()
    {
        QObject::connect(&m_termination, &TerminationSignals::received, QCoreApplication::instance(),
                         &QCoreApplication::quit);
        std::shared_ptr<CommandLog> log;
        if (auto opened = CommandLog::open(CommandLog::defaultPath()))
            log = opened.value();
        else
            std::fprintf(stderr, "sbw: warning: %s\n", qPrintable(opened.error().message));
        // A file the user names must exist; the default one may be missing (the empty policy).
        const bool named = m_parser.isSet(m_policy);
        m_connection = std::make_unique<HypervisorConnection>(defaultConnectionUri(m_parser.value(m_connect)));
        auto gate = makeHeadlessGate(named ? m_parser.value(m_policy) : Policy::defaultPath(),
                                     named ? Policy::IfMissing::Error : Policy::IfMissing::Empty, log,
                                     m_connection.get());
        if (!gate)
            return fail(gate.error().message);
        m_gate = std::move(gate.value());
        const QString policyFile = named ? m_parser.value(m_policy) : Policy::defaultPath();
        m_gate->setPolicyFile(policyFile); // read again when it changes (a fork's copied rules)
        serveEgress(log);
        m_server = std::make_unique<McpServer>(m_gate.get(), log);
        auto sandboxes = std::make_shared<McpSandboxes>(m_connection.get());
        sandboxes->setPolicyFile(policyFile);
        for (McpTool& tool : workbenchTools(sandboxes))
            m_server->addTool(std::move(tool));
        m_server->addTool(networkActivityTool(m_gate.get(), log));
        return std::nullopt;
    }

    McpServer* server() { return m_server.get(); }

private:
    /// Allowlist workspaces this process opens a session to send their guests' connections to
    /// this process's proxy, judged by the same gate (and its terminal approver).
    void serveEgress(const std::shared_ptr<CommandLog>& log)
    {
        m_egress = std::make_unique<EgressProxy>(m_gate.get(), log);
        m_egress->acceptGuestConnections();
    }

    QString m_synopsis;
    QCommandLineParser m_parser;
    const QCommandLineOption m_policy{QStringLiteral("policy"),
                                      QStringLiteral("Approval policy file (default: the workbench's policy.json)."),
                                      QStringLiteral("FILE")};
    const QCommandLineOption m_connect{QStringLiteral("connect"), QStringLiteral("libvirt URI."),
                                       QStringLiteral("URI")};
    std::unique_ptr<HypervisorConnection> m_connection; ///< before the gate, whose pause uses it
    std::unique_ptr<PolicyGate> m_gate;
    std::unique_ptr<EgressProxy> m_egress; ///< after the gate: destroyed first
    std::unique_ptr<McpServer> m_server; ///< after the gate: destroyed first
    TerminationSignals m_termination{3};  ///< the third signal ends the process at once
};

} // namespace

int mcpCommand(const QStringList& arguments)
{
    Headless headless(QStringLiteral("sbw mcp [--policy FILE] [--connect URI]"));
    if (auto done = headless.parse(arguments))
        return *done;
    if (auto failed = headless.start())
        return *failed;
    McpStdioTransport transport(headless.server(), STDIN_FILENO, STDOUT_FILENO);
    QObject::connect(&transport, &McpStdioTransport::finished, QCoreApplication::instance(), &QCoreApplication::quit);
    transport.start();
    return QCoreApplication::exec();
}

int serveCommand(const QStringList& arguments)
{
    Headless headless(QStringLiteral("sbw serve --port N [--policy FILE] [--connect URI]"));
    const QCommandLineOption port(QStringLiteral("port"), QStringLiteral("TCP port on 127.0.0.1 (0: any free port)."),
                                  QStringLiteral("N"));
    headless.parser().addOption(port);
    if (auto done = headless.parse(arguments))
        return *done;
    bool ok = false;
    const int number = headless.parser().value(port).toInt(&ok);
    if (!headless.parser().isSet(port) || !ok || number < 0 || number > 65535)
        return fail(QStringLiteral("--port needs a TCP port number from 0 to 65535"), kUsageError);
    if (auto failed = headless.start())
        return *failed;
    const auto token = loadOrCreateMcpToken(defaultMcpTokenPath());
    if (!token)
        return fail(token.error().message);
    McpHttpTransport transport(headless.server(), token.value());
    auto listening = transport.listen(quint16(number));
    if (!listening)
        return fail(listening.error().message);
    std::fprintf(stderr, "sbw: MCP server on http://127.0.0.1:%u/mcp (bearer token in %s)\n",
                 unsigned(listening.value()), qPrintable(defaultMcpTokenPath()));
    std::fflush(stderr);
    return QCoreApplication::exec();
}

} // namespace sbw
