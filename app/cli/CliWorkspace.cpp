#include "CliWorkspace.h"

#include "approval/Policy.h"
#include "base/DataPaths.h"
#include "base/TerminationSignals.h"
#include "base/WriteAll.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "image/GuestImage.h"
#include "log/LoggedAction.h"
#include "sandbox/SandboxLimits.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommand.h"
#include "workspace/WorkspaceDomains.h"

#include <QCommandLineParser>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

namespace sbw {
namespace {

constexpr int kUsageError = 2;
constexpr int kWorkbenchError = 125;

const char kUsage[] =
    "usage: sbw ws SUBCOMMAND [options]\n\n"
    "subcommands:\n"
    "  create NAME [--image R] [--vcpus N] [--memory MIB] [--disk GIB] [--cpu-share PERCENT]\n"
    "              [--network none|nat|allowlist] [--json]\n"
    "                             defaults: minimal, 1 vCPU, 512 MiB, 4 GiB (at least the\n"
    "                             image's size), CPU share 0 (no limit; percent of one host\n"
    "                             core, held at every start), network none; left stopped\n"
    "  list [--json]\n"
    "  start NAME                 boot it (returns while it starts; exec waits for it),\n"
    "                             or wake it when hibernated\n"
    "  wake NAME                  the same as start\n"
    "  stop NAME [--grace S]      shut the guest down cleanly (its agent, or sync and\n"
    "                             poweroff over SSH), forced off after S s (30; 0 forces at\n"
    "                             once); says which on stderr; exits 1 when forced\n"
    "                             (unflushed writes lost)\n"
    "  exec NAME [--workdir DIR] [--timeout S] [--output-cap BYTES] [--stdin] -- CMD [ARGS...]\n"
    "                             defaults: /root, no timeout, 64M per stream; --stdin (-i)\n"
    "                             passes sbw's stdin (read to its end first); exits with\n"
    "                             CMD's status (124 timeout, 137 output cap; a limit that\n"
    "                             ended CMD is named on stderr); the workspace's\n"
    "                             environment variables are set\n"
    "  env NAME list              the variables set in every command; secret values as ****\n"
    "  env NAME set KEY=VALUE [--secret]\n"
    "                             a secret value is masked in the command log\n"
    "  env NAME unset KEY\n"
    "  pause NAME | resume NAME | hibernate NAME\n"
    "  checkpoint NAME CHECKPOINT [--note TEXT]\n"
    "  checkpoint NAME --list [--json] | checkpoint NAME --delete CHECKPOINT\n"
    "  checkpoint NAME --before-approved on|off\n"
    "                             a checkpoint before-<log row> before each exec or file\n"
    "                             write of an agent that a person approved (off by default)\n"
    "  revert NAME CHECKPOINT [--yes]\n"
    "  fork NAME NEW [--from CHECKPOINT | --disk-only] [--json]\n"
    "                             a new workspace NEW from NAME's disk, and its memory\n"
    "                             when it runs (its processes go on in NEW), or from\n"
    "                             checkpoint CHECKPOINT; --disk-only: NEW left stopped;\n"
    "                             NEW gets NAME's checkpoints, variables and policy\n"
    "                             rules; NAME keeps running (paused for the disk copy)\n"
    "  rm NAME [--yes]\n"
    "common options: --connect URI\n\n"
    "states: stopped -start-> running -pause-> paused -resume-> running;\n"
    "running or paused -hibernate-> hibernated -start/wake-> as it was.\n"
    "exec needs running; checkpoint needs running or paused; revert is refused while\n"
    "hibernated (wake it first).\n";

/// The command log; null (after one warning on stderr) when it cannot be opened.
std::shared_ptr<CommandLog> commandLog()
{
    auto log = CommandLog::openDefault([](const QString& error) {
        std::fprintf(stderr, "sbw: warning: %s\n", qPrintable(error));
    });
    return log ? log.value() : nullptr;
}

/// A command-log row of the CLI for `kind` on workspace `name`.
ActionStart cliAction(const QString& name, ActionKind kind, const QString& detail = {})
{
    ActionStart start;
    start.sandbox = name;
    start.actor.kind = Actor::Kind::Cli;
    start.kind = kind;
    start.command = detail;
    return start;
}

/// `argv` as a shell would read it back: arguments with characters other than letters, digits
/// and _@%+=:,./- are single-quoted (for the command log).
QString shellWords(const QStringList& argv)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList words;
    for (const QString& arg : argv) {
        if (plain.match(arg).hasMatch())
            words << arg;
        else
            words << QLatin1Char('\'') + QString(arg).replace(QLatin1String("'"), QLatin1String("'\\''")) +
                         QLatin1Char('\'');
    }
    return words.join(QLatin1Char(' '));
}

/// Runs `operation` as a logged CLI action.
Expected<void> logged(const ActionStart& start, const std::function<Expected<void>()>& operation)
{
    LoggedAction action(commandLog(), start);
    auto result = operation();
    action.finish(LoggedAction::endOf(result));
    return result;
}

int fail(const QString& message, int code = kWorkbenchError)
{
    std::fprintf(stderr, "sbw: %s%s\n", code == kWorkbenchError ? "error: " : "",
                 qPrintable(message));
    return code;
}

void printJson(const QJsonValue& value)
{
    const QByteArray text = value.isArray() ? QJsonDocument(value.toArray()).toJson()
                                            : QJsonDocument(value.toObject()).toJson();
    writeAll(STDOUT_FILENO, text);
}

/// Asks "QUESTION [y/N] " on the terminal. False when stdin is not a terminal.
bool confirm(const QString& question)
{
    if (!isatty(STDIN_FILENO))
        return false;
    std::fprintf(stderr, "%s [y/N] ", qPrintable(question));
    std::fflush(stderr);
    char answer[16] = {};
    if (!std::fgets(answer, sizeof answer, stdin))
        return false;
    return answer[0] == 'y' || answer[0] == 'Y';
}

QString tableRow(const QStringList& cells, const QList<int>& widths)
{
    QString row;
    for (int i = 0; i < cells.size(); ++i)
        row += i + 1 < cells.size() ? cells[i].leftJustified(widths[i]) + QLatin1String("  ")
                                    : cells[i];
    return row + QLatin1Char('\n');
}

class Command
{
public:
    explicit Command(QStringList arguments) : m_arguments(std::move(arguments))
    {
        m_parser.addHelpOption();
        m_parser.addOption(m_connect);
    }

    QCommandLineParser& parser() { return m_parser; }

    /// Parses; on failure or --help returns the exit status to end with.
    std::optional<int> parse(int positionals, const QString& synopsis)
    {
        if (!m_parser.parse(m_arguments))
            return fail(m_parser.errorText() + QStringLiteral(" (usage: %1)").arg(synopsis),
                        kUsageError);
        if (m_parser.isSet(QStringLiteral("help"))) {
            std::printf("usage: %s\n", qPrintable(synopsis));
            return 0;
        }
        if (positionals >= 0 && m_parser.positionalArguments().size() != positionals)
            return fail(QStringLiteral("usage: %1").arg(synopsis), kUsageError);
        m_connection =
            std::make_unique<HypervisorConnection>(defaultConnectionUri(m_parser.value(m_connect)));
        return std::nullopt;
    }

    QString arg(int i) const { return m_parser.positionalArguments().value(i); }
    HypervisorConnection& connection() { return *m_connection; }

    Expected<std::unique_ptr<Workspace>> open() { return Workspace::open(*m_connection, arg(0)); }

private:
    QStringList m_arguments;
    QCommandLineParser m_parser;
    const QCommandLineOption m_connect{QStringLiteral("connect"), QStringLiteral("libvirt URI."),
                                       QStringLiteral("URI")};
    std::unique_ptr<HypervisorConnection> m_connection;
};

int create(Command& c)
{
    const QCommandLineOption image(QStringLiteral("image"), QStringLiteral("Guest image recipe."),
                                   QStringLiteral("R"), QStringLiteral("minimal"));
    const QCommandLineOption vcpus(QStringLiteral("vcpus"), QStringLiteral("vCPUs."),
                                   QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption memory(QStringLiteral("memory"),
                                    QStringLiteral("Memory, MiB (default 512; 1024 for the browser image)."),
                                    QStringLiteral("MIB"));
    const QCommandLineOption disk(QStringLiteral("disk"), QStringLiteral("Disk size, GiB."),
                                  QStringLiteral("GIB"), QStringLiteral("4"));
    const QCommandLineOption network(QStringLiteral("network"), QStringLiteral("none, nat or allowlist (HTTP(S) through the window's proxy; each destination by the policy's network rules)."),
                                     QStringLiteral("NET"), QStringLiteral("none"));
    const QCommandLineOption cpuShare(QStringLiteral("cpu-share"),
                                      QStringLiteral("CPU time, percent of one host core."),
                                      QStringLiteral("PERCENT"), QStringLiteral("0"));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Print the record as JSON."));
    c.parser().addOptions({image, vcpus, memory, disk, cpuShare, network, json});
    if (auto done =
            c.parse(1, QStringLiteral("sbw ws create NAME [--image R] [--vcpus N] [--memory MIB] "
                                      "[--disk GIB] [--cpu-share PERCENT] [--network none|nat|allowlist] "
                                      "[--json]")))
        return *done;
    WorkspaceSettings settings;
    settings.recipe = c.parser().value(image);
    bool ok1 = false, ok2 = false, ok3 = false, ok4 = false;
    settings.vcpus = c.parser().value(vcpus).toInt(&ok1);
    settings.memoryMiB = defaultWorkspaceMemoryMiB(settings.recipe);
    if (c.parser().isSet(memory))
        settings.memoryMiB = c.parser().value(memory).toInt(&ok2);
    else
        ok2 = true;
    settings.diskGiB = c.parser().value(disk).toInt(&ok3);
    settings.cpuSharePercent = c.parser().value(cpuShare).toInt(&ok4);
    if (!ok1 || !ok2 || !ok3 || !ok4)
        return fail(QStringLiteral("--vcpus, --memory, --disk and --cpu-share need numbers"),
                    kUsageError);
    if (auto share = validateCpuShare(settings.cpuSharePercent, settings.vcpus); !share)
        return fail(QStringLiteral("--cpu-share: ") + share.error().message, kUsageError);
    if (settings.diskGiB < 1)
        return fail(QStringLiteral("--disk needs a whole number of GiB, e.g. 8"), kUsageError);
    // Refused here too so that it is a usage error; an image that is not built is reported by
    // Workspace::create().
    if (auto built = GuestImage::load(paths::imagesDir(), settings.recipe)) {
        if (auto size = diskLimit(built.value(), settings.diskGiB); !size)
            return fail(QStringLiteral("--disk: ") + size.error().message, kUsageError);
    }
    if (!parseWorkspaceNetwork(c.parser().value(network), &settings.network))
        return fail(QStringLiteral("--network is none, nat or allowlist"), kUsageError);
    LoggedAction logAction(commandLog(), cliAction(c.arg(0), ActionKind::Create,
                                                    QStringLiteral("%1 vCPU(s), %2 MiB, %3 GiB disk, network %4")
                                                        .arg(settings.vcpus)
                                                        .arg(settings.memoryMiB)
                                                        .arg(settings.diskGiB)
                                                        .arg(c.parser().value(network))));
    auto workspace = Workspace::create(c.connection(), c.arg(0), settings);
    logAction.finish(workspace ? ActionEnd{} : LoggedAction::endOf(Expected<void>(workspace.error())));
    if (!workspace)
        return fail(workspace.error().message);
    if (c.parser().isSet(json))
        printJson(workspace.value()->record().toJson());
    else
        std::printf("created workspace %s (stopped)\n", qPrintable(c.arg(0)));
    return 0;
}

int list(Command& c)
{
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    c.parser().addOption(json);
    if (auto done = c.parse(0, QStringLiteral("sbw ws list [--json]")))
        return *done;
    if (auto opened = c.connection().ensureOpen(); !opened)
        return fail(opened.error().message);
    auto records = listWorkspaceRecords(c.connection().handle());
    if (!records)
        return fail(records.error().message);
    QJsonArray array;
    QList<QStringList> rows{{QStringLiteral("NAME"), QStringLiteral("STATE"),
                             QStringLiteral("VCPUS"), QStringLiteral("MEMORY"),
                             QStringLiteral("DISK"), QStringLiteral("NETWORK"),
                             QStringLiteral("IMAGE"), QStringLiteral("CREATED"),
                             QStringLiteral("ORIGIN")}};
    for (const WorkspaceRecord& record : records.value()) {
        auto domain = lookupWorkspaceDomain(c.connection().handle(), record.name);
        const QString state = workspaceStateName(domain ? readWorkspaceState(domain->get())
                                                        : WorkspaceState::Unknown);
        QJsonObject object = record.toJson();
        object.insert(QStringLiteral("state"), state);
        // Held in the JSON record alone (set by `sbw ws checkpoint --before-approved` or the
        // window), not in libvirt's metadata that the listing reads.
        if (auto checkpointing = loadCheckpointBeforeApproved(record.name))
            object.insert(QStringLiteral("checkpoint_before_approved"), checkpointing.value());
        array.append(object);
        rows << QStringList{record.name,
                            state,
                            QString::number(record.settings.vcpus),
                            QStringLiteral("%1 MiB").arg(record.settings.memoryMiB),
                            QStringLiteral("%1 GiB").arg(record.settings.diskGiB),
                            workspaceNetworkName(record.settings.network),
                            record.settings.recipe,
                            record.created.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                            record.origin.describe()};
    }
    if (c.parser().isSet(json)) {
        printJson(array);
        return 0;
    }
    QList<int> widths(rows.first().size(), 0);
    for (const QStringList& row : rows)
        for (int i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], int(row[i].size()));
    for (const QStringList& row : rows)
        writeAll(STDOUT_FILENO, tableRow(row, widths).toUtf8());
    return 0;
}

/// start (also wakes a hibernated workspace), wake (the same), pause, resume, hibernate: NAME only.
int lifecycle(Command& c, const QString& verb)
{
    if (auto done = c.parse(1, QStringLiteral("sbw ws %1 NAME").arg(verb)))
        return *done;
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    Workspace& ws = *workspace.value();
    ActionKind kind = ActionKind::Hibernate;
    std::function<Expected<void>()> operation = [&ws] { return ws.hibernate(); };
    if (verb == QLatin1String("start") || verb == QLatin1String("wake")) {
        const bool hibernated = ws.state() == WorkspaceState::Hibernated;
        kind = hibernated ? ActionKind::Wake : ActionKind::Start;
        operation = [&ws, hibernated] { return hibernated ? ws.wake() : ws.start(); };
    } else if (verb == QLatin1String("pause")) {
        kind = ActionKind::Pause;
        operation = [&ws] { return ws.pause(); };
    } else if (verb == QLatin1String("resume")) {
        kind = ActionKind::Resume;
        operation = [&ws] { return ws.resume(); };
    }
    const Expected<void> result = logged(cliAction(ws.name(), kind), operation);
    if (!result)
        return fail(result.error().message);
    std::printf("%s: %s\n", qPrintable(ws.name()), qPrintable(workspaceStateName(ws.state())));
    return 0;
}

int stop(Command& c)
{
    const QCommandLineOption grace(QStringLiteral("grace"),
                                   QStringLiteral("Seconds before a forced stop (0: force at "
                                                  "once, without asking the guest)."),
                                   QStringLiteral("S"), QStringLiteral("30"));
    c.parser().addOption(grace);
    if (auto done = c.parse(1, QStringLiteral("sbw ws stop NAME [--grace S]")))
        return *done;
    bool ok = false;
    const int seconds = c.parser().value(grace).toInt(&ok);
    if (!ok || seconds < 0)
        return fail(QStringLiteral("--grace needs a number of seconds"), kUsageError);
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    LoggedAction action(commandLog(), cliAction(c.arg(0), ActionKind::Stop));
    const auto stopped = workspace.value()->stop(std::chrono::seconds(seconds));
    finishStopAction(action, stopped);
    if (!stopped)
        return fail(stopped.error().message);
    std::printf("%s: %s\n", qPrintable(c.arg(0)),
                qPrintable(workspaceStateName(workspace.value()->state())));
    if (stopped->forced) {
        std::fprintf(stderr, "sbw: warning: %s\n", qPrintable(stopped->summary()));
        return 1;
    }
    std::fprintf(stderr, "sbw: %s\n", qPrintable(stopped->summary()));
    return 0;
}

/// All of sbw's stdin.
Expected<QByteArray> readStdin()
{
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read stdin: %1").arg(in.errorString()));
    QByteArray bytes = in.readAll();
    if (in.error() != QFileDevice::NoError)
        return makeError(QStringLiteral("cannot read stdin: %1").arg(in.errorString()));
    return bytes;
}

/// Whether stdin is a file or pipe with bytes waiting (not a terminal, not /dev/null, not
/// empty): what a person piping into exec without --stdin would lose.
bool stdinHasData()
{
    int waiting = 0;
    return !isatty(STDIN_FILENO) && ioctl(STDIN_FILENO, FIONREAD, &waiting) == 0 && waiting > 0;
}

int exec(Command& c)
{
    const QCommandLineOption workdir(QStringLiteral("workdir"),
                                     QStringLiteral("Working folder (default /root)."),
                                     QStringLiteral("DIR"), QStringLiteral("/root"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
                                     QStringLiteral("Kill the command after S s (0 = never)."),
                                     QStringLiteral("S"), QStringLiteral("0"));
    const QCommandLineOption outputCap(QStringLiteral("output-cap"),
                                       QStringLiteral("Pass at most BYTES of stdout and of stderr "
                                                      "each, then kill the command; K, M, G "
                                                      "suffixes (default 64M, 0 = none)."),
                                       QStringLiteral("BYTES"), QStringLiteral("64M"));
    const QCommandLineOption passStdin(QStringList{QStringLiteral("i"), QStringLiteral("stdin")},
                                       QStringLiteral("Pass sbw's stdin to the command (read to its end "
                                                      "before the command starts); without it the "
                                                      "command's stdin is empty."));
    c.parser().addOptions({workdir, timeout, outputCap, passStdin});
    const QString synopsis = QStringLiteral(
        "sbw ws exec NAME [--workdir DIR] [--timeout S] [--output-cap BYTES] [--stdin] -- CMD [ARGS...]");
    if (auto done = c.parse(-1, synopsis))
        return *done;
    const QStringList positionals = c.parser().positionalArguments();
    if (positionals.size() < 2)
        return fail(QStringLiteral("usage: %1").arg(synopsis), kUsageError);
    bool ok = false;
    const int seconds = c.parser().value(timeout).toInt(&ok);
    if (!ok || seconds < 0)
        return fail(QStringLiteral("--timeout needs a number of seconds"), kUsageError);
    const auto cap = parseByteSize(c.parser().value(outputCap));
    if (!cap)
        return fail(QStringLiteral("--output-cap needs a size in bytes, e.g. 65536, 64K or 16M"),
                    kUsageError);
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);

    // The command blocks this thread, so it reads the flag the handler sets; the third signal
    // ends sbw at once.
    const TerminationSignals termination(3);
    WorkspaceCommandOptions options;
    options.command = shellWords(positionals.mid(1));
    options.shellCommand = Workspace::commandLine(positionals.mid(1), c.parser().value(workdir));
    options.workdir = c.parser().value(workdir);
    options.timeout = std::chrono::seconds(seconds);
    options.outputCapBytes = *cap;
    if (c.parser().isSet(passStdin)) {
        auto input = readStdin();
        if (!input)
            return fail(input.error().message);
        options.stdinData = input.value();
    } else if (stdinHasData()) {
        std::fprintf(stderr, "sbw: stdin is not passed to the command; add --stdin (-i) to pass it\n");
    }
    options.onOutput = [](OutputStream stream, QByteArrayView bytes) {
        writeAll(stream == OutputStream::Stdout ? STDOUT_FILENO : STDERR_FILENO, bytes);
    };
    options.cancel = &TerminationSignals::requested();
    const bool kvm = c.connection().accelerator() == Accelerator::Kvm;
    options.readyDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(kvm ? 30 : 120);
    options.log = commandLog();
    options.actor.kind = Actor::Kind::Cli;
    const WorkspaceCommandResult result = runWorkspaceCommand(*workspace.value(), options);
    if (!result.error.isEmpty())
        return TerminationSignals::requested() ? 130 : fail(result.error);
    if (!result.limitNote.isEmpty())
        std::fprintf(stderr, "sbw: %s\n", qPrintable(result.limitNote));
    return result.cliExitCode();
}

/// `sbw ws env NAME list | set KEY=VALUE [--secret] | unset KEY`.
int env(Command& c)
{
    const QCommandLineOption secret(QStringLiteral("secret"),
                                    QStringLiteral("Mask the value in the command log and lists."));
    c.parser().addOption(secret);
    const QString synopsis = QStringLiteral(
        "sbw ws env NAME list | NAME set KEY=VALUE [--secret] | NAME unset KEY");
    if (auto done = c.parse(-1, synopsis))
        return *done;
    const QStringList positionals = c.parser().positionalArguments();
    const QString verb = positionals.value(1);
    const int wanted = verb == QLatin1String("list") ? 2 : 3;
    if (positionals.size() != wanted ||
        !QStringList{QStringLiteral("list"), QStringLiteral("set"), QStringLiteral("unset")}.contains(verb) ||
        (c.parser().isSet(secret) && verb != QLatin1String("set")))
        return fail(QStringLiteral("usage: %1").arg(synopsis), kUsageError);
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    auto environment = workspace.value()->environment();
    if (!environment)
        return fail(environment.error().message);
    if (verb == QLatin1String("list")) {
        for (const WorkspaceVariable& variable : environment->variables())
            writeAll(STDOUT_FILENO, (variable.name + QLatin1Char('=') +
                                     (variable.secret ? QStringLiteral("****") : variable.value) +
                                     (variable.secret ? QStringLiteral("  (secret)") : QString()) +
                                     QLatin1Char('\n'))
                                        .toUtf8());
        return 0;
    }
    const QString argument = positionals.value(2);
    if (verb == QLatin1String("set")) {
        const qsizetype equals = argument.indexOf(QLatin1Char('='));
        if (equals < 0)
            return fail(QStringLiteral("set needs KEY=VALUE"), kUsageError);
        if (auto set = environment->set(argument.left(equals), argument.mid(equals + 1),
                                        c.parser().isSet(secret));
            !set)
            return fail(set.error().message, kUsageError);
    } else if (!environment->unset(argument)) {
        return fail(QStringLiteral("workspace %1 has no variable %2").arg(c.arg(0), argument),
                    kUsageError);
    }
    if (auto saved = workspace.value()->setEnvironment(environment.value()); !saved)
        return fail(saved.error().message);
    return 0;
}

int checkpoint(Command& c)
{
    const QCommandLineOption note(QStringLiteral("note"),
                                  QStringLiteral("Note kept with the checkpoint."),
                                  QStringLiteral("TEXT"));
    const QCommandLineOption listOption(QStringLiteral("list"),
                                        QStringLiteral("List the checkpoints, oldest first."));
    const QCommandLineOption remove(QStringLiteral("delete"),
                                    QStringLiteral("Delete checkpoint CHECKPOINT."),
                                    QStringLiteral("CHECKPOINT"));
    const QCommandLineOption beforeApproved(
        QStringLiteral("before-approved"),
        QStringLiteral("on: take a checkpoint before each agent action a person approves; off: not."),
        QStringLiteral("on|off"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    c.parser().addOptions({note, listOption, remove, beforeApproved, json});
    const QString synopsis = QStringLiteral("sbw ws checkpoint NAME CHECKPOINT [--note TEXT] | "
                                            "NAME --list [--json] | NAME --delete CHECKPOINT | "
                                            "NAME --before-approved on|off");
    if (auto done = c.parse(-1, synopsis))
        return *done;
    const int positionals = int(c.parser().positionalArguments().size());
    const bool wantsList = c.parser().isSet(listOption);
    const bool wantsDelete = c.parser().isSet(remove);
    const bool wantsSetting = c.parser().isSet(beforeApproved);
    if (positionals != (wantsList || wantsDelete || wantsSetting ? 1 : 2) ||
        int(wantsList) + int(wantsDelete) + int(wantsSetting) > 1)
        return fail(QStringLiteral("usage: %1").arg(synopsis), kUsageError);
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    Workspace& ws = *workspace.value();
    if (wantsSetting) {
        const QString value = c.parser().value(beforeApproved);
        if (value != QLatin1String("on") && value != QLatin1String("off"))
            return fail(QStringLiteral("--before-approved takes on or off"), kUsageError);
        if (auto set = ws.setCheckpointBeforeApproved(value == QLatin1String("on")); !set)
            return fail(set.error().message);
        std::printf("%s: %s\n", qPrintable(ws.name()),
                    value == QLatin1String("on") ? "a checkpoint before each approved agent action"
                                                 : "no checkpoints before approved agent actions");
        return 0;
    }
    if (wantsDelete) {
        if (auto deleted = logged(cliAction(ws.name(), ActionKind::CheckpointDelete, c.parser().value(remove)),
                                  [&] { return ws.deleteCheckpoint(c.parser().value(remove)); });
            !deleted)
            return fail(deleted.error().message);
        std::printf("deleted checkpoint %s of %s\n", qPrintable(c.parser().value(remove)),
                    qPrintable(ws.name()));
        return 0;
    }
    if (wantsList) {
        auto checkpoints = ws.checkpoints();
        if (!checkpoints)
            return fail(checkpoints.error().message);
        if (c.parser().isSet(json)) {
            QJsonArray array;
            for (const CheckpointInfo& info : checkpoints.value())
                array.append(info.toJson());
            printJson(array);
            return 0;
        }
        for (const CheckpointInfo& info : checkpoints.value())
            std::printf(
                "%s %s %-20s %-8s %s\n", info.current ? "*" : " ",
                qPrintable(info.created.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))),
                qPrintable(info.name), qPrintable(info.guestState), qPrintable(info.note));
        return 0;
    }
    const QString noteText = c.parser().value(note);
    LoggedAction logAction(commandLog(), cliAction(ws.name(), ActionKind::Checkpoint,
                                                    noteText.isEmpty() ? c.arg(1) : c.arg(1) + QStringLiteral(": ") + noteText));
    auto info = ws.checkpoint(c.arg(1), noteText);
    logAction.finish(info ? ActionEnd{} : LoggedAction::endOf(Expected<void>(info.error())));
    if (!info)
        return fail(info.error().message);
    if (c.parser().isSet(json))
        printJson(info->toJson());
    else
        std::printf("checkpoint %s of %s taken\n", qPrintable(info->name), qPrintable(ws.name()));
    return 0;
}

int revert(Command& c)
{
    const QCommandLineOption yes(QStringLiteral("yes"), QStringLiteral("Do not ask."));
    c.parser().addOption(yes);
    if (auto done = c.parse(2, QStringLiteral("sbw ws revert NAME CHECKPOINT [--yes]")))
        return *done;
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    auto impact = workspace.value()->revertImpact(c.arg(1));
    if (!impact)
        return fail(impact.error().message);
    if (!c.parser().isSet(yes)) {
        if (!isatty(STDIN_FILENO))
            return fail(impact->describe() +
                            QStringLiteral(" Give --yes to revert without a terminal."),
                        kUsageError);
        if (!confirm(impact->describe() + QStringLiteral(" Revert?")))
            return 1;
    }
    if (auto reverted = logged(cliAction(c.arg(0), ActionKind::Revert, c.arg(1)),
                               [&] { return workspace.value()->revert(c.arg(1)); });
        !reverted)
        return fail(reverted.error().message);
    std::printf("%s: reverted to %s, %s\n", qPrintable(c.arg(0)), qPrintable(c.arg(1)),
                qPrintable(workspaceStateName(workspace.value()->state())));
    return 0;
}

int fork(Command& c)
{
    const QCommandLineOption from(QStringLiteral("from"),
                                  QStringLiteral("Fork from checkpoint CHECKPOINT of NAME."),
                                  QStringLiteral("CHECKPOINT"));
    const QCommandLineOption diskOnly(QStringLiteral("disk-only"),
                                      QStringLiteral("Copy the disk alone; NEW is left stopped."));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the fork's record as JSON."));
    c.parser().addOptions({from, diskOnly, json});
    if (auto done = c.parse(2, QStringLiteral("sbw ws fork NAME NEW [--from CHECKPOINT | --disk-only] [--json]")))
        return *done;
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    const QString checkpoint = c.parser().value(from);
    const QString detail = checkpoint.isEmpty() ? c.arg(1)
                                                : QStringLiteral("%1 from checkpoint %2").arg(c.arg(1), checkpoint);
    LoggedAction logAction(commandLog(), cliAction(c.arg(0), ActionKind::Fork, detail));
    auto forked = workspace.value()->fork(c.arg(1), {checkpoint, !c.parser().isSet(diskOnly)});
    logAction.finish(forked ? ActionEnd{} : LoggedAction::endOf(Expected<void>(forked.error())));
    if (!forked)
        return fail(forked.error().message);
    if (auto copied = Policy::copyWorkspace(Policy::defaultPath(), c.arg(0), c.arg(1)); !copied)
        std::fprintf(stderr, "sbw: warning: the fork has no copy of the policy rules: %s\n",
                     qPrintable(copied.error().message));
    Workspace& fork = *forked.value();
    if (c.parser().isSet(json)) {
        QJsonObject object = fork.record().toJson();
        object.remove(QStringLiteral("environment"));
        object.insert(QStringLiteral("state"), workspaceStateName(fork.state()));
        printJson(object);
    } else {
        std::printf("forked %s into %s (%s)\n", qPrintable(c.arg(0)), qPrintable(c.arg(1)),
                    qPrintable(workspaceStateName(fork.state())));
    }
    return 0;
}

int rm(Command& c)
{
    const QCommandLineOption yes(QStringLiteral("yes"), QStringLiteral("Do not ask."));
    c.parser().addOption(yes);
    if (auto done = c.parse(1, QStringLiteral("sbw ws rm NAME [--yes]")))
        return *done;
    auto workspace = c.open();
    if (!workspace)
        return fail(workspace.error().message);
    if (!c.parser().isSet(yes)) {
        const QString question =
            QStringLiteral("Delete workspace '%1' with its disk and all its checkpoints?")
                .arg(c.arg(0));
        if (!isatty(STDIN_FILENO))
            return fail(question + QStringLiteral(" Give --yes to delete without a terminal."),
                        kUsageError);
        if (!confirm(question))
            return 1;
    }
    if (auto removed = logged(cliAction(c.arg(0), ActionKind::Remove), [&] { return workspace.value()->remove(); });
        !removed)
        return fail(removed.error().message);
    std::printf("deleted workspace %s\n", qPrintable(c.arg(0)));
    return 0;
}

} // namespace

int workspaceCommand(const QStringList& arguments)
{
    const QString sub = arguments.value(1);
    if (sub.isEmpty() || sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        std::fputs(kUsage, sub.isEmpty() ? stderr : stdout);
        return sub.isEmpty() ? kUsageError : 0;
    }
    Command c(QStringList{arguments.value(0) + QLatin1Char(' ') + sub} + arguments.mid(2));
    if (sub == QLatin1String("create"))
        return create(c);
    if (sub == QLatin1String("list"))
        return list(c);
    if (sub == QLatin1String("stop"))
        return stop(c);
    if (sub == QLatin1String("exec"))
        return exec(c);
    if (sub == QLatin1String("env"))
        return env(c);
    if (sub == QLatin1String("checkpoint"))
        return checkpoint(c);
    if (sub == QLatin1String("revert"))
        return revert(c);
    if (sub == QLatin1String("rm"))
        return rm(c);
    if (sub == QLatin1String("fork"))
        return fork(c);
    for (const char* verb : {"start", "wake", "pause", "resume", "hibernate"})
        if (sub == QLatin1String(verb))
            return lifecycle(c, sub);
    return fail(QStringLiteral("unknown subcommand '%1'\n%2").arg(sub, QLatin1String(kUsage)),
                kUsageError);
}

} // namespace sbw
