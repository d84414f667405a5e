// sbw: the command-line interface of Sandbox Workbench. Argument parsing only; the work is in
// sbw-core.

#include "CliImage.h"
#include "CliLog.h"
#include "CliMcp.h"
#include "CliRun.h"
#include "CliStats.h"
#include "CliWorkspace.h"
#include "approval/HeadlessGate.h"
#include "approval/PolicyGate.h"
#include "base/DataPaths.h"
#include "base/Logging.h"
#include "egress/EgressProxy.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "image/GuestImage.h"
#include "log/CommandLog.h"
#include "run/RunInputFiles.h"
#include "sandbox/SandboxLimits.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTimer>

#include <cstdio>
#include <limits>
#include <optional>

namespace {

constexpr int kUsageError = 2;

int fail(const QString& message, int code = sbw::RunResult::kWorkbenchError)
{
    std::fprintf(stderr, "sbw: %s\n", qPrintable(message));
    return code;
}

/// A whole number of seconds, 0 or more.
std::optional<int> parseSeconds(const QString& text)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    return ok && value >= 0 ? std::optional<int>(value) : std::nullopt;
}

/// `sbw run`'s options and what they ask for.
struct RunCommandLine
{
    QCommandLineParser parser;
    const QCommandLineOption code{{QStringLiteral("c"), QStringLiteral("code")},
                                  QStringLiteral("Run CODE instead of a file."), QStringLiteral("CODE")};
    const QCommandLineOption lang{QStringLiteral("lang"),
                                  QStringLiteral("python or sh (default: sh for FILE ending in .sh, "
                                                 "else python)."),
                                  QStringLiteral("LANG")};
    const QCommandLineOption timeout{QStringLiteral("timeout"),
                                     QStringLiteral("Kill the script after S seconds (default 60, 0 = none)."),
                                     QStringLiteral("S"), QStringLiteral("60")};
    const QCommandLineOption memory{QStringLiteral("memory"), QStringLiteral("Guest memory in MiB (default 512)."),
                                    QStringLiteral("MIB"), QStringLiteral("512")};
    const QCommandLineOption vcpus{QStringLiteral("vcpus"), QStringLiteral("Guest vCPUs (default 2; 1 on a single-core host)."),
                                   QStringLiteral("N"), QString::number(sbw::defaultRunVcpus())};
    const QCommandLineOption cpuShare{QStringLiteral("cpu-share"),
                                      QStringLiteral("CPU time of all vCPUs together, in percent of one "
                                                     "host core (default 0 = no limit; up to 100 per vCPU)."),
                                      QStringLiteral("PERCENT"), QStringLiteral("0")};
    const QCommandLineOption disk{QStringLiteral("disk"),
                                  QStringLiteral("Disk size in GiB, which the guest's root file system "
                                                 "fills (default: the image's size, 4 for minimal)."),
                                  QStringLiteral("GIB")};
    const QCommandLineOption lifetime{QStringLiteral("lifetime"),
                                      QStringLiteral("End the whole run, boot included, after S seconds "
                                                     "(default 0 = none)."),
                                      QStringLiteral("S"), QStringLiteral("0")};
    const QCommandLineOption outputCap{QStringLiteral("output-cap"),
                                       QStringLiteral("Keep at most BYTES of stdout and of stderr each, then "
                                                      "kill the script; K, M, G suffixes (default 64M, 0 = "
                                                      "none)."),
                                       QStringLiteral("BYTES"), QStringLiteral("64M")};
    const QCommandLineOption image{QStringLiteral("image"), QStringLiteral("Guest image recipe (default minimal)."),
                                   QStringLiteral("RECIPE"), QStringLiteral("minimal")};
    const QCommandLineOption connectUri{QStringLiteral("connect"),
                                        QStringLiteral("libvirt URI (default: $LIBVIRT_DEFAULT_URI, else "
                                                       "qemu:///system for root, qemu:///session otherwise)."),
                                        QStringLiteral("URI")};
    const QCommandLineOption boot{QStringLiteral("boot"),
                                  QStringLiteral("Boot the microVM instead of restoring the saved ready "
                                                 "microVM of this image and these limits (saved at the "
                                                 "first run that needs it).")};
    const QCommandLineOption verbose{{QStringLiteral("v"), QStringLiteral("verbose")},
                                     QStringLiteral("Print phases and timings to stderr.")};
    const QCommandLineOption inputFile{QStringLiteral("file"),
                                       QStringLiteral("Copy PATH into the script's working folder "
                                                      "before it starts, under its own name "
                                                      "(repeatable)."),
                                       QStringLiteral("PATH")};
    const QCommandLineOption network{QStringLiteral("network"),
                                     QStringLiteral("none (default: no network) or allowlist: the script reaches "
                                                    "hosts only through the workbench's HTTP proxy, each "
                                                    "destination judged by the policy's network rules and "
                                                    "--allow."),
                                     QStringLiteral("MODE"), QStringLiteral("none")};
    const QCommandLineOption allow{QStringLiteral("allow"),
                                   QStringLiteral("With --network allowlist: allow HOST[:PORT] for this run "
                                                  "(repeatable): a name, *.domain, an address or a CIDR range; "
                                                  "ports 80 and 443 when none is given."),
                                   QStringLiteral("HOST[:PORT]")};
    const QCommandLineOption outFolder{QStringLiteral("out"),
                                       QStringLiteral("Copy the files the script wrote under out/ "
                                                      "into DIR (created if missing), one line "
                                                      "each on stderr."),
                                       QStringLiteral("DIR")};

    RunCommandLine()
    {
        parser.setApplicationDescription(QStringLiteral(
            "Runs a script in a fresh microVM and destroys it. The guest's stdout and stderr are "
            "streamed to this process's own; the exit status is the script's (128+N when signal N "
            "ended it, 124 on timeout or lifetime, 130 when interrupted, 125 when the workbench "
            "failed). A limit that ended the script is named on stderr: timeout, lifetime, output "
            "cap (137: killed), memory limit (the guest's OOM killer; 137 when it killed the "
            "script), disk limit (the script's own status)."));
        parser.addHelpOption();
        parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Script to run ('-' for stdin); or -c CODE."),
                                     QStringLiteral("FILE | -c CODE"));
        parser.addOptions({code, lang, timeout, memory, vcpus, cpuShare, disk, lifetime, outputCap,
                           image, inputFile, outFolder, network, allow, connectUri, boot, verbose});
    }

    /// The language, limits and input files the options ask for (not the script). Errors are
    /// usage errors, in the order of the options' checks.
    sbw::Expected<sbw::RunOptions> runOptions() const
    {
        sbw::RunOptions options;
        options.actor.kind = sbw::Actor::Kind::Cli;
        if (parser.isSet(boot))
            options.source = sbw::SandboxSource::Boot;
        const QString file = parser.positionalArguments().value(0);
        const QString languageName = parser.isSet(lang) ? parser.value(lang)
                                     : file.endsWith(QLatin1String(".sh"))
                                         ? QStringLiteral("sh")
                                         : QStringLiteral("python");
        const auto language = sbw::parseLanguage(languageName);
        if (!language)
            return sbw::makeError(QStringLiteral("unknown language '%1' (python or sh)").arg(languageName));
        options.language = *language;
        const auto seconds = parseSeconds(parser.value(timeout));
        if (!seconds)
            return sbw::makeError(QStringLiteral("--timeout needs a number of seconds"));
        options.timeout = std::chrono::seconds(*seconds);
        const auto lifetimeSeconds = parseSeconds(parser.value(lifetime));
        if (!lifetimeSeconds)
            return sbw::makeError(QStringLiteral("--lifetime needs a number of seconds"));
        options.lifetime = std::chrono::seconds(*lifetimeSeconds);
        const auto cap = sbw::parseByteSize(parser.value(outputCap));
        if (!cap)
            return sbw::makeError(QStringLiteral("--output-cap needs a size in bytes, e.g. 65536, 64K or 16M"));
        options.outputCapBytes = *cap;
        auto sandbox = sandboxOptions();
        if (!sandbox)
            return sandbox.error();
        options.sandbox = sandbox.value();
        options.inputFiles = parser.values(inputFile);
        if (auto inputs = sbw::checkInputFiles(options.inputFiles); !inputs)
            return inputs.error();
        const QString mode = parser.value(network);
        if (mode != QLatin1String("none") && mode != QLatin1String("allowlist"))
            return sbw::makeError(QStringLiteral("--network is none or allowlist, not '%1'").arg(mode));
        options.egressProxy = mode == QLatin1String("allowlist");
        if (parser.isSet(allow) && !options.egressProxy)
            return sbw::makeError(QStringLiteral("--allow needs --network allowlist"));
        return options;
    }

    /// The network rules of --allow, in the order given.
    sbw::Expected<QList<sbw::PolicyRule>> allowRules() const
    {
        QList<sbw::PolicyRule> rules;
        for (const QString& value : parser.values(allow)) {
            auto rule = allowRule(value);
            if (!rule)
                return rule.error();
            rules.append(rule.value());
        }
        return rules;
    }

    /// "pypi.org", "*.github.com:22", "10.0.0.0/8:5432", "[::1]:8080" as an allow rule.
    static sbw::Expected<sbw::PolicyRule> allowRule(const QString& value)
    {
        QString host = value;
        QString port;
        const QString notAHost = QStringLiteral("--allow %1: not a host name, *.domain, address or CIDR range").arg(value);
        if (value.startsWith(QLatin1Char('['))) { // [IPv6]:PORT
            const qsizetype end = value.indexOf(QLatin1Char(']'));
            if (end < 0 || (end + 1 < value.size() && value.at(end + 1) != QLatin1Char(':')))
                return sbw::makeError(notAHost);
            host = value.mid(1, end - 1);
            port = value.mid(end + 2);
        } else if (value.count(QLatin1Char(':')) == 1) {
            host = value.section(QLatin1Char(':'), 0, 0);
            port = value.section(QLatin1Char(':'), 1);
        }
        sbw::PolicyRule rule{{sbw::ActionKind::Network}, host, sbw::PolicyDecision::Allow};
        bool ok = true;
        const uint number = port.isEmpty() ? 0 : port.toUInt(&ok);
        if (!ok || number > 65535 || (!port.isEmpty() && number == 0))
            return sbw::makeError(QStringLiteral("--allow %1: the port is a number from 1 to 65535").arg(value));
        if (number != 0)
            rule.ports = {quint16(number)};
        if (host.isEmpty() || !rule.networkPattern())
            return sbw::makeError(notAHost);
        return rule;
    }

    /// The microVM the options ask for: image, memory, vCPUs, CPU share, disk.
    sbw::Expected<sbw::SandboxOptions> sandboxOptions() const
    {
        sbw::SandboxOptions sandbox;
        bool ok = false;
        sandbox.memoryMiB = parser.value(memory).toInt(&ok);
        if (!ok || sandbox.memoryMiB < 128)
            return sbw::makeError(QStringLiteral("--memory needs a whole number of MiB, at least 128, e.g. 512"));
        sandbox.vcpus = parser.value(vcpus).toInt(&ok);
        if (!ok || sandbox.vcpus < 1)
            return sbw::makeError(QStringLiteral("--vcpus needs a positive number"));
        sandbox.cpuSharePercent = parser.value(cpuShare).toInt(&ok);
        if (!ok)
            return sbw::makeError(QStringLiteral("--cpu-share needs a percentage of one host core, e.g. 50"));
        if (auto share = sbw::validateCpuShare(sandbox.cpuSharePercent, sandbox.vcpus); !share)
            return sbw::makeError(QStringLiteral("--cpu-share: ") + share.error().message);
        sandbox.recipe = parser.value(image);
        if (parser.isSet(disk)) {
            sandbox.diskGiB = parser.value(disk).toInt(&ok);
            if (!ok || sandbox.diskGiB < 1)
                return sbw::makeError(QStringLiteral("--disk needs a whole number of GiB, e.g. 8"));
            // Refused here too so that it is a usage error; an image that is not built is
            // reported when the run starts.
            if (auto built = sbw::GuestImage::load(sbw::paths::imagesDir(), sandbox.recipe)) {
                if (auto size = sbw::diskLimit(built.value(), sandbox.diskGiB); !size)
                    return sbw::makeError(QStringLiteral("--disk: ") + size.error().message);
            }
        }
        return sandbox;
    }

    /// The script: CODE of -c, else the FILE's bytes (stdin for '-').
    sbw::Expected<QByteArray> script() const
    {
        if (parser.isSet(code))
            return parser.value(code).toUtf8();
        if (parser.positionalArguments().size() != 1)
            return sbw::makeError(QStringLiteral("give a script FILE or -c CODE (see sbw run --help)"));
        const QString path = parser.positionalArguments().constFirst();
        QFile file;
        const bool opened = path == QLatin1String("-") ? file.open(stdin, QIODevice::ReadOnly)
                                                       : (file.setFileName(path), file.open(QIODevice::ReadOnly));
        if (!opened)
            return sbw::makeError(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        return file.readAll();
    }
};

int runCommand(QCoreApplication& app, const QStringList& arguments)
{
    RunCommandLine line;
    QCommandLineParser& parser = line.parser;
    if (!parser.parse(arguments))
        return fail(parser.errorText() + QStringLiteral(" (see sbw run --help)"), kUsageError);
    if (parser.isSet(QStringLiteral("help"))) {
        QString help = parser.helpText();
        help.replace(QCoreApplication::arguments().constFirst(), QStringLiteral("sbw run"));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }
    std::shared_ptr<sbw::CommandLog> log;
    if (auto opened = sbw::CommandLog::openDefault([](const QString& error) {
            std::fprintf(stderr, "sbw: warning: %s\n", qPrintable(error));
        }))
        log = opened.value();
    auto options = line.runOptions();
    if (!options)
        return fail(options.error().message, kUsageError);
    options->log = log;
    const QString outputFolder = parser.value(line.outFolder);
    if (parser.isSet(line.outFolder) && !QDir().mkpath(outputFolder))
        return fail(QStringLiteral("--out: cannot create the folder %1").arg(outputFolder), kUsageError);
    auto script = line.script();
    if (!script)
        return fail(script.error().message, kUsageError);
    options->code = script.value();

    sbw::HypervisorConnection connection(sbw::defaultConnectionUri(parser.value(line.connectUri)));
    // The allowlist network: this process's proxy, judged by the policy file's rules after
    // --allow's; unlisted destinations are asked on the terminal (denied without one).
    std::unique_ptr<sbw::PolicyGate> gate;
    std::unique_ptr<sbw::EgressProxy> proxy;
    if (options->egressProxy) {
        const auto rules = line.allowRules();
        if (!rules)
            return fail(rules.error().message, kUsageError);
        auto made = sbw::makeHeadlessGate(sbw::Policy::defaultPath(), sbw::Policy::IfMissing::Empty, log, &connection);
        if (!made)
            return fail(made.error().message, sbw::RunResult::kWorkbenchError);
        gate = std::move(made.value());
        sbw::Policy policy = gate->policy();
        policy.defaultRules = rules.value() + policy.defaultRules;
        gate->setPolicy(policy);
        proxy = std::make_unique<sbw::EgressProxy>(gate.get(), log);
        proxy->acceptGuestConnections();
    }
    sbw::CliRun run(&connection, parser.isSet(line.verbose));
    run.setOutputFolder(outputFolder);
    QTimer::singleShot(0, &run, [&, runOptions = options.value()] { run.start(runOptions); });
    return app.exec();
}

} // namespace

int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("sbw"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PROJECT_VERSION));
    sbw::initLogging(QStringLiteral("sbw"), false);

    QStringList arguments = app.arguments();
    const QString command = arguments.size() > 1 ? arguments.at(1) : QString();
    if (command == QLatin1String("run")) {
        arguments.removeAt(1);
        arguments[0] = QStringLiteral("sbw run");
        return runCommand(app, arguments);
    }
    if (command == QLatin1String("ws"))
        return sbw::workspaceCommand(QStringList{QStringLiteral("sbw ws")} + arguments.mid(2));
    if (command == QLatin1String("stats"))
        return sbw::statsCommand(arguments.mid(0, 1) + arguments.mid(2));
    if (command == QLatin1String("log"))
        return sbw::logCommand(arguments.mid(0, 1) + arguments.mid(2));
    if (command == QLatin1String("mcp"))
        return sbw::mcpCommand(QStringList{QStringLiteral("sbw mcp")} + arguments.mid(2));
    if (command == QLatin1String("serve"))
        return sbw::serveCommand(QStringList{QStringLiteral("sbw serve")} + arguments.mid(2));
    if (command == QLatin1String("image"))
        return sbw::imageCommand(arguments.mid(0, 1) + arguments.mid(2));
    if (command == QLatin1String("--version")) {
        std::printf("sbw %s\n", PROJECT_VERSION);
        return 0;
    }
    const bool asked = command == QLatin1String("--help") || command == QLatin1String("-h");
    if (!asked && !command.isEmpty())
        std::fprintf(stderr, "sbw: unknown command '%s'\n", qPrintable(command));
    std::fprintf(asked ? stdout : stderr,
                 "usage: sbw COMMAND [options]\n\n"
                 "commands:\n"
                 "  run FILE | -c CODE   run a script in a fresh microVM (sbw run --help)\n"
                 "  ws SUBCOMMAND        persistent workspaces (sbw ws --help)\n"
                 "  stats                CPU, memory, disk and network of the sandboxes (sbw stats --help)\n"
                 "  log                  the command log: every action on every sandbox (sbw log --help)\n"
                 "  image list|build|rm  guest image templates (sbw image --help)\n"
                 "  mcp                  the MCP server for agents on stdin/stdout (sbw mcp --help)\n"
                 "  serve --port N       the MCP server over HTTP on 127.0.0.1 (sbw serve --help)\n");
    return asked ? 0 : kUsageError;
}
