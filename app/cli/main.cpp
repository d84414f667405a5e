// sbw: the command-line interface of Sandbox Workbench. Argument parsing only; the work is in
// sbw-core.

#include "CliRun.h"
#include "CliLog.h"
#include "CliStats.h"
#include "CliWorkspace.h"
#include "ConnectionUri.h"
#include "HypervisorConnection.h"
#include "LibvirtEventLoop.h"
#include "Logging.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QTimer>

#include <cstdio>

namespace {

constexpr int kUsageError = 2;

int fail(const QString& message, int code = sbw::RunResult::kWorkbenchError)
{
    std::fprintf(stderr, "sbw: %s\n", qPrintable(message));
    return code;
}

int runCommand(QCoreApplication& app, const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Runs a script in a fresh microVM and destroys it. The guest's stdout and stderr are "
        "streamed to this process's own; the exit status is the script's (128+N when signal N "
        "ended it, 124 on timeout, 130 when interrupted, 125 when the workbench failed)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Script to run ('-' for stdin)."));
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
    const QCommandLineOption vcpus(QStringLiteral("vcpus"), QStringLiteral("Guest vCPUs (default 1)."),
                                   QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption image(QStringLiteral("image"), QStringLiteral("Guest image recipe (default minimal)."),
                                   QStringLiteral("RECIPE"), QStringLiteral("minimal"));
    const QCommandLineOption connectUri(QStringLiteral("connect"),
                                        QStringLiteral("libvirt URI (default: $LIBVIRT_DEFAULT_URI, else "
                                                       "qemu:///system for root, qemu:///session otherwise)."),
                                        QStringLiteral("URI"));
    const QCommandLineOption verbose({QStringLiteral("v"), QStringLiteral("verbose")},
                                     QStringLiteral("Print phases and timings to stderr."));
    parser.addOptions({code, lang, timeout, memory, vcpus, image, connectUri, verbose});
    if (!parser.parse(arguments))
        return fail(parser.errorText() + QStringLiteral(" (see sbw run --help)"), kUsageError);
    if (parser.isSet(QStringLiteral("help"))) {
        QString help = parser.helpText();
        help.replace(QCoreApplication::arguments().constFirst(), QStringLiteral("sbw run"));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }

    sbw::RunOptions options;
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
    options.timeout = std::chrono::seconds(parser.value(timeout).toInt(&ok));
    if (!ok || options.timeout.count() < 0)
        return fail(QStringLiteral("--timeout needs a number of seconds"), kUsageError);
    options.sandbox.memoryMiB = parser.value(memory).toInt(&ok);
    if (!ok || options.sandbox.memoryMiB < 128)
        return fail(QStringLiteral("--memory needs at least 128 (MiB)"), kUsageError);
    options.sandbox.vcpus = parser.value(vcpus).toInt(&ok);
    if (!ok || options.sandbox.vcpus < 1)
        return fail(QStringLiteral("--vcpus needs a positive number"), kUsageError);
    options.sandbox.recipe = parser.value(image);

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
    if (command == QLatin1String("--version")) {
        std::printf("sbw %s\n", PROJECT_VERSION);
        return 0;
    }
    const bool asked = command == QLatin1String("--help") || command == QLatin1String("-h");
    std::fprintf(asked ? stdout : stderr,
                 "usage: sbw COMMAND [options]\n\n"
                 "commands:\n"
                 "  run FILE | -c CODE   run a script in a fresh microVM (sbw run --help)\n"
                 "  ws SUBCOMMAND        persistent workspaces (sbw ws --help)\n"
                 "  stats                CPU, memory, disk and network of the sandboxes (sbw stats --help)\n"
                 "  log                  the command log: every action on every sandbox (sbw log --help)\n");
    return asked ? 0 : kUsageError;
}
