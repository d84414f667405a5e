// sbw: the command-line interface of Sandbox Workbench. Argument parsing only; the work is in
// sbw-core.

#include "CliImage.h"
#include "CliLog.h"
#include "CliMcp.h"
#include "CliRun.h"
#include "CommandLog.h"
#include "CliStats.h"
#include "CliWorkspace.h"
#include "ConnectionUri.h"
#include "DataPaths.h"
#include "GuestImage.h"
#include "HypervisorConnection.h"
#include "LibvirtEventLoop.h"
#include "Logging.h"
#include "RunInputFiles.h"
#include "SandboxLimits.h"

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

int runCommand(QCoreApplication& app, const QStringList& arguments)
{
    QCommandLineParser parser;
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
    const QCommandLineOption code({QStringLiteral("c"), QStringLiteral("code")},
                                  QStringLiteral("Run CODE instead of a file."), QStringLiteral("CODE"));
    const QCommandLineOption lang(QStringLiteral("lang"),
                                  QStringLiteral("python or sh (default: sh for FILE ending in .sh, "
                                                 "else python)."),
                                  QStringLiteral("LANG"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
                                     QStringLiteral("Kill the script after S seconds (default 60, 0 = none)."),
                                     QStringLiteral("S"), QStringLiteral("60"));
    const QCommandLineOption memory(QStringLiteral("memory"), QStringLiteral("Guest memory in MiB (default 512)."),
                                    QStringLiteral("MIB"), QStringLiteral("512"));
    const QCommandLineOption vcpus(QStringLiteral("vcpus"), QStringLiteral("Guest vCPUs (default 2; 1 on a single-core host)."),
                                   QStringLiteral("N"), QString::number(sbw::defaultRunVcpus()));
    const QCommandLineOption cpuShare(QStringLiteral("cpu-share"),
                                      QStringLiteral("CPU time of all vCPUs together, in percent of one "
                                                     "host core (default 0 = no limit; up to 100 per vCPU)."),
                                      QStringLiteral("PERCENT"), QStringLiteral("0"));
    const QCommandLineOption disk(QStringLiteral("disk"),
                                  QStringLiteral("Disk size in GiB, which the guest's root file system "
                                                 "fills (default: the image's size, 4 for minimal)."),
                                  QStringLiteral("GIB"));
    const QCommandLineOption lifetime(QStringLiteral("lifetime"),
                                      QStringLiteral("End the whole run, boot included, after S seconds "
                                                     "(default 0 = none)."),
                                      QStringLiteral("S"), QStringLiteral("0"));
    const QCommandLineOption outputCap(QStringLiteral("output-cap"),
                                       QStringLiteral("Keep at most BYTES of stdout and of stderr each, then "
                                                      "kill the script; K, M, G suffixes (default 64M, 0 = "
                                                      "none)."),
                                       QStringLiteral("BYTES"), QStringLiteral("64M"));
    const QCommandLineOption image(QStringLiteral("image"), QStringLiteral("Guest image recipe (default minimal)."),
                                   QStringLiteral("RECIPE"), QStringLiteral("minimal"));
    const QCommandLineOption connectUri(QStringLiteral("connect"),
                                        QStringLiteral("libvirt URI (default: $LIBVIRT_DEFAULT_URI, else "
                                                       "qemu:///system for root, qemu:///session otherwise)."),
                                        QStringLiteral("URI"));
    const QCommandLineOption verbose({QStringLiteral("v"), QStringLiteral("verbose")},
                                     QStringLiteral("Print phases and timings to stderr."));
    const QCommandLineOption inputFile(QStringLiteral("file"),
                                       QStringLiteral("Copy PATH into the script's working folder "
                                                      "before it starts, under its own name "
                                                      "(repeatable)."),
                                       QStringLiteral("PATH"));
    const QCommandLineOption outFolder(QStringLiteral("out"),
                                       QStringLiteral("Copy the files the script wrote under out/ "
                                                      "into DIR (created if missing), one line "
                                                      "each on stderr."),
                                       QStringLiteral("DIR"));
    parser.addOptions({code, lang, timeout, memory, vcpus, cpuShare, disk, lifetime, outputCap,
                       image, inputFile, outFolder, connectUri, verbose});
    if (!parser.parse(arguments))
        return fail(parser.errorText() + QStringLiteral(" (see sbw run --help)"), kUsageError);
    if (parser.isSet(QStringLiteral("help"))) {
        QString help = parser.helpText();
        help.replace(QCoreApplication::arguments().constFirst(), QStringLiteral("sbw run"));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }

    sbw::RunOptions options;
    options.actor.kind = sbw::Actor::Kind::Cli;
    if (auto log = sbw::CommandLog::openDefault([](const QString& error) {
            std::fprintf(stderr, "sbw: warning: %s\n", qPrintable(error));
        }))
        options.log = log.value();
    const QString file = parser.positionalArguments().value(0);
    const QString languageName = parser.isSet(lang) ? parser.value(lang)
                                 : file.endsWith(QLatin1String(".sh"))
                                     ? QStringLiteral("sh")
                                     : QStringLiteral("python");
    const auto language = sbw::parseLanguage(languageName);
    if (!language)
        return fail(QStringLiteral("unknown language '%1' (python or sh)").arg(languageName), kUsageError);
    options.language = *language;
    bool ok = false;
    const auto seconds = parseSeconds(parser.value(timeout));
    if (!seconds)
        return fail(QStringLiteral("--timeout needs a number of seconds"), kUsageError);
    options.timeout = std::chrono::seconds(*seconds);
    const auto lifetimeSeconds = parseSeconds(parser.value(lifetime));
    if (!lifetimeSeconds)
        return fail(QStringLiteral("--lifetime needs a number of seconds"), kUsageError);
    options.lifetime = std::chrono::seconds(*lifetimeSeconds);
    const auto cap = sbw::parseByteSize(parser.value(outputCap));
    if (!cap)
        return fail(QStringLiteral("--output-cap needs a size in bytes, e.g. 65536, 64K or 16M"),
                    kUsageError);
    options.outputCapBytes = *cap;
    options.sandbox.memoryMiB = parser.value(memory).toInt(&ok);
    if (!ok || options.sandbox.memoryMiB < 128)
        return fail(QStringLiteral("--memory needs a whole number of MiB, at least 128, e.g. 512"), kUsageError);
    options.sandbox.vcpus = parser.value(vcpus).toInt(&ok);
    if (!ok || options.sandbox.vcpus < 1)
        return fail(QStringLiteral("--vcpus needs a positive number"), kUsageError);
    options.sandbox.cpuSharePercent = parser.value(cpuShare).toInt(&ok);
    if (!ok)
        return fail(QStringLiteral("--cpu-share needs a percentage of one host core, e.g. 50"), kUsageError);
    if (auto share = sbw::validateCpuShare(options.sandbox.cpuSharePercent, options.sandbox.vcpus); !share)
        return fail(QStringLiteral("--cpu-share: ") + share.error().message, kUsageError);
    options.sandbox.recipe = parser.value(image);
    if (parser.isSet(disk)) {
        options.sandbox.diskGiB = parser.value(disk).toInt(&ok);
        if (!ok || options.sandbox.diskGiB < 1)
            return fail(QStringLiteral("--disk needs a whole number of GiB, e.g. 8"), kUsageError);
        // Refused here too so that it is a usage error; an image that is not built is reported
        // when the run starts.
        if (auto built = sbw::GuestImage::load(sbw::paths::imagesDir(), options.sandbox.recipe)) {
            if (auto size = sbw::diskLimit(built.value(), options.sandbox.diskGiB); !size)
                return fail(QStringLiteral("--disk: ") + size.error().message, kUsageError);
        }
    }

    options.inputFiles = parser.values(inputFile);
    if (auto inputs = sbw::checkInputFiles(options.inputFiles); !inputs)
        return fail(inputs.error().message, kUsageError);
    const QString outputFolder = parser.value(outFolder);
    if (parser.isSet(outFolder) && !QDir().mkpath(outputFolder))
        return fail(QStringLiteral("--out: cannot create the folder %1").arg(outputFolder), kUsageError);

    if (parser.isSet(code)) {
        options.code = parser.value(code).toUtf8();
    } else if (parser.positionalArguments().size() == 1) {
        const QString path = parser.positionalArguments().constFirst();
        QFile file;
        const bool opened = path == QLatin1String("-") ? file.open(stdin, QIODevice::ReadOnly)
                                                       : (file.setFileName(path), file.open(QIODevice::ReadOnly));
        if (!opened)
            return fail(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()), kUsageError);
        options.code = file.readAll();
    } else {
        return fail(QStringLiteral("give a script FILE or -c CODE (see sbw run --help)"), kUsageError);
    }

    sbw::HypervisorConnection connection(sbw::defaultConnectionUri(parser.value(connectUri)));
    sbw::CliRun run(&connection, parser.isSet(verbose));
    run.setOutputFolder(outputFolder);
    QTimer::singleShot(0, &run, [&] { run.start(options); });
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
