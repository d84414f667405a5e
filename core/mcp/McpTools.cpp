#include "mcp/McpTools.h"

#include "approval/Policy.h"
#include "capacity/QueuePosition.h"
#include "browser/BrowserSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/LoggedAction.h"
#include "mcp/McpCommandOutput.h"
#include "mcp/McpFileChanges.h"
#include "mcp/McpRunFiles.h"
#include "mcp/McpToolSchema.h"
#include "run/EphemeralRun.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCommand.h"
#include "workspace/WorkspaceDomains.h"
#include "workspace/WorkspaceEnvironment.h"
#include "workspace/WorkspaceCommandRunner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>

namespace sbw {

using namespace mcp;

namespace {

constexpr int kMaxTimeoutSeconds = 24 * 3600;

QString shellWords(const QStringList& argv)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList words;
    for (const QString& arg : argv)
        words << (plain.match(arg).hasMatch()
                      ? arg
                      : QLatin1Char('\'') +
                            QString(arg).replace(QLatin1String("'"), QLatin1String("'\\''")) +
                            QLatin1Char('\''));
    return words.join(QLatin1Char(' '));
}

Expected<QString> guestPath(const Arguments& arguments, const QString& name,
                            const QString& fallback = {})
{
    auto path =
        fallback.isEmpty() ? arguments.requiredString(name) : arguments.string(name, fallback);
    if (path && !path.value().startsWith(QLatin1Char('/')))
        return makeError(
            QStringLiteral("%1 must be an absolute guest path (starting with /)").arg(name));
    return path;
}

QJsonObject stateOutputSchema()
{
    return objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("state"),
          stringSchema(QStringLiteral(
              "stopped, starting, running, paused, hibernated, crashed or unknown."))}},
        {QStringLiteral("workspace"), QStringLiteral("state")});
}

/// McpCommandOutput::schema() plus the run's artifacts.
QJsonObject runCodeOutputSchema()
{
    QJsonObject schema = McpCommandOutput::schema();
    QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    properties.insert(
        QStringLiteral("artifacts"),
        QJsonObject{
            {QStringLiteral("type"), QStringLiteral("array")},
            {QStringLiteral("items"), runArtifactSchema()},
            {QStringLiteral("description"),
             QStringLiteral("Files the script wrote under out/ (subfolders included), in name "
                            "order; up to 100 files and 100 MiB come back.")}});
    properties.insert(QStringLiteral("queued_ms"),
                      integerSchema(QStringLiteral("Milliseconds the run waited for a free microVM (every place "
                                                   "for one was taken); 0 when one was free at once."),
                                    0));
    properties.insert(QStringLiteral("artifacts_note"),
                      stringSchema(QStringLiteral(
                          "Empty when every file under out/ came back; otherwise which cap "
                          "left which files behind.")));
    schema.insert(QStringLiteral("properties"), properties);
    QJsonArray required = schema.value(QLatin1String("required")).toArray();
    required << QStringLiteral("artifacts") << QStringLiteral("artifacts_note") << QStringLiteral("queued_ms");
    schema.insert(QStringLiteral("required"), required);
    return withFileChangesSchema(schema);
}

/// The optional `host` argument of run_code and create_workspace.
QJsonObject hostSchema()
{
    return stringSchema(QStringLiteral(
        "libvirt connection URI of the host to use, one of the workbench's connections "
        "(list_workspaces shows them); default: the first."));
}

QJsonObject runCodeInputSchema()
{
    return objectSchema(
        {{QStringLiteral("language"),
          enumSchema(QStringLiteral("python (python3) or sh; default python."),
                     {QStringLiteral("python"), QStringLiteral("sh")})},
         {QStringLiteral("code"), stringSchema(QStringLiteral("The script."))},
         {QStringLiteral("timeout"),
          integerSchema(
              QStringLiteral("Seconds before the script is killed; default 60, 0 = none."), 0,
              kMaxTimeoutSeconds)},
         {QStringLiteral("files"), runInputFilesSchema()},
         {QStringLiteral("host"), hostSchema()}},
        {QStringLiteral("code")});
}

/// run_code's request: the script is the command the policy judges; the input files (with
/// their bytes) travel with it, so the run takes exactly what the approver saw.
Expected<ActionRequest> prepareRunCode(const QJsonObject& json)
{
    const Arguments arguments(json);
    auto language = arguments.choice(QStringLiteral("language"),
                                     {QStringLiteral("python"), QStringLiteral("sh")},
                                     QStringLiteral("python"));
    auto code = arguments.requiredString(QStringLiteral("code"));
    auto timeout = arguments.integer(QStringLiteral("timeout"), 60, 0, kMaxTimeoutSeconds);
    for (const Error* error :
         {language ? nullptr : &language.error(), code ? nullptr : &code.error(),
          timeout ? nullptr : &timeout.error()})
        if (error)
            return *error;
    auto files = parseRunInputFiles(json.value(QLatin1String("files")));
    if (!files)
        return files.error();
    ActionRequest request;
    request.kind = ActionKind::Run;
    request.language = language.value();
    request.command = code.value();
    request.inputFiles = files.value();
    return request;
}

/// The run's options from an approved call. The agent's files go through the private host
/// folder `staging` (made here when there are files), as `sbw run --file` takes them.
Expected<RunOptions> runCodeOptions(const McpCall& call, const McpSandboxes::Host& host,
                                    std::optional<QTemporaryDir>& staging)
{
    RunOptions options;
    options.language = parseLanguage(call.request.language).value_or(Language::Python);
    options.code = call.request.command.toUtf8();
    options.timeout = std::chrono::seconds(
        Arguments(call.arguments)
            .integer(QStringLiteral("timeout"), 60, 0, kMaxTimeoutSeconds)
            .value());
    options.actor = call.request.actor;
    options.pool = host.pool.get();
    if (call.request.inputFiles.isEmpty())
        return options;
    staging.emplace();
    if (!staging->isValid())
        return makeError(QStringLiteral("cannot stage the input files on the host: %1")
                             .arg(staging->errorString()));
    auto staged = stageRunInputFiles(call.request.inputFiles, staging->path());
    if (!staged)
        return staged.error();
    options.inputFiles = staged.value();
    return options;
}

/// run_code's reply to a run that finished: output, exit status, artifacts; a timeout or a
/// limit that ended the script is the reply's error.
McpToolResult runCodeResult(const RunResult& run, const RunOptions& options, const McpCall& call)
{
    ExecStatus status;
    status.exitStatus = run.exitStatus;
    status.signal = run.signal;
    status.timedOut = run.timedOut;
    McpCommandOutput output;
    output.add(OutputStream::Stdout, run.stdoutData);
    output.add(OutputStream::Stderr, run.stderrData);
    McpToolResult result;
    result.structured = output.structured(status, run.wallMs, call.log->id());
    result.structuredOnly = {QStringLiteral("stdout"), QStringLiteral("stderr")};
    const RunArtifactsResult artifacts = runArtifactsResult(run.artifacts, run.domainName);
    result.structured.insert(QStringLiteral("artifacts"), artifacts.list);
    result.structured.insert(QStringLiteral("artifacts_note"), run.artifactsNote);
    result.structured.insert(QStringLiteral("queued_ms"), run.queuedMs);
    result.content = artifacts.content;
    result.resources = artifacts.resources;
    result.end = LoggedAction::endOf(Expected<ExecStatus>(status));
    result.end.artifactsDir = run.artifactsFolder;
    addFileChanges(result, run.fileChanges);
    if (run.timedOut || run.limit) {
        result.error = run.timedOut ? QStringLiteral("timed out after %1 s: the script was killed")
                                          .arg(options.timeout.count())
                                    : run.summary();
        result.end.error = result.error;
    }
    return result;
}

McpTool runCodeTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("run_code");
    tool.title = QStringLiteral("Run code in a fresh microVM");
    tool.description = QStringLiteral(
        "Runs a Python or shell script in a fresh microVM as root in /root/run and destroys the "
        "microVM afterwards: nothing persists. Input files (files) are placed in /root/run first. "
        "Returns stdout, stderr, exit status or signal, and the files the script wrote under "
        "out/ (artifacts): listed in structuredContent with a URI for resources/read, small ones "
        "also as image or resource content blocks.");
    tool.kind = ActionKind::Run;
    tool.inputSchema = runCodeInputSchema();
    tool.outputSchema = runCodeOutputSchema();
    tool.prepare = prepareRunCode;
    tool.run = [sandboxes](const McpCall& call) {
        const auto host = sandboxes->host(Arguments(call.arguments).string(QStringLiteral("host"), {}).value());
        if (!host)
            return McpToolResult::failure(host.error().message);
        std::optional<QTemporaryDir> staging;
        const auto options = runCodeOptions(call, host.value(), staging);
        if (!options)
            return McpToolResult::failure(options.error().message);
        RunCallbacks callbacks;
        callbacks.onStdout = [&call](QByteArrayView bytes) {
            call.log->output(OutputStream::Stdout, bytes);
        };
        callbacks.onStderr = [&call](QByteArrayView bytes) {
            call.log->output(OutputStream::Stderr, bytes);
        };
        // Progress for clients that ask: each phase (the first run of an image saves its ready
        // state for seconds), the place in the queue while every place is taken, and the
        // upload of the image into a new host's pool.
        callbacks.onPhase = [&call](RunPhase phase) {
            if (call.progress && phase != RunPhase::Queued && phase != RunPhase::Finished)
                call.progress(phaseName(phase));
        };
        callbacks.onQueued = [&call](int ahead, int maxSandboxes) {
            if (call.progress)
                call.progress(QStringLiteral("queued: ") + queuePositionText(ahead, maxSandboxes));
        };
        callbacks.onStaging = [&call](qint64 sent, qint64 total) {
            if (call.progress)
                call.progress(stagingText(sent, total));
        };
        // A cancel (the client's) stops the run and destroys its microVM.
        const RunResult run =
            runEphemeral(*host->connection, options.value(), callbacks, call.cancel);
        if (run.cancelled || (!run.error.isEmpty() && call.cancel && *call.cancel))
            return McpToolResult::failure(QStringLiteral("cancelled"), Outcome::Cancelled);
        if (!run.error.isEmpty())
            return McpToolResult::failure(run.error);
        return runCodeResult(run, options.value(), call);
    };
    return tool;
}

/// The workspaces on one host, as list_workspaces shows them.
Expected<QJsonArray> listHostWorkspaces(HypervisorConnection& connection)
{
    if (auto opened = connection.ensureOpen(); !opened)
        return opened.error();
    auto records = listWorkspaceRecords(connection.handle());
    if (!records)
        return records.error();
    QJsonArray list;
    for (const WorkspaceRecord& record : records.value()) {
        auto domain = lookupWorkspaceDomain(connection.handle(), record.name);
        const WorkspaceState state = domain ? readWorkspaceState(domain.value().get()) : WorkspaceState::Unknown;
        list.append(QJsonObject{{QStringLiteral("name"), record.name},
                                {QStringLiteral("state"), workspaceStateName(state)},
                                {QStringLiteral("memory_mib"), record.settings.memoryMiB},
                                {QStringLiteral("vcpus"), record.settings.vcpus},
                                {QStringLiteral("disk_gib"), record.settings.diskGiB},
                                {QStringLiteral("network"), workspaceNetworkName(record.settings.network)},
                                {QStringLiteral("host"), connection.uri()}});
    }
    return list;
}

McpTool listWorkspacesTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("list_workspaces");
    tool.title = QStringLiteral("List workspaces");
    tool.description = QStringLiteral(
        "Lists the persistent workspaces on every host of the workbench with their state, size "
        "and host, and the hosts (libvirt connection URIs; a host that does not answer has an "
        "error).");
    tool.kind = ActionKind::List;
    tool.inputSchema = objectSchema({});
    const QJsonObject entry = objectSchema(
        {{QStringLiteral("name"), stringSchema(QStringLiteral("Workspace name."))},
         {QStringLiteral("state"),
          stringSchema(QStringLiteral(
              "stopped, starting, running, paused, hibernated, crashed or unknown."))},
         {QStringLiteral("memory_mib"), integerSchema(QStringLiteral("Guest memory, MiB."))},
         {QStringLiteral("vcpus"), integerSchema(QStringLiteral("Guest vCPUs."))},
         {QStringLiteral("disk_gib"), integerSchema(QStringLiteral("Disk size, GiB."))},
         {QStringLiteral("network"), stringSchema(QStringLiteral("none, nat or allowlist."))},
         {QStringLiteral("host"), stringSchema(QStringLiteral("libvirt connection URI of its host."))}},
        {QStringLiteral("name"), QStringLiteral("state"), QStringLiteral("host")});
    const QJsonObject host = objectSchema(
        {{QStringLiteral("uri"), stringSchema(QStringLiteral("libvirt connection URI."))},
         {QStringLiteral("error"), stringSchema(QStringLiteral("Why it did not answer; absent when it did."))}},
        {QStringLiteral("uri")});
    const auto arrayOf = [](const QJsonObject& items) {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), items}};
    };
    tool.outputSchema = objectSchema({{QStringLiteral("workspaces"), arrayOf(entry)},
                                      {QStringLiteral("hosts"), arrayOf(host)}},
                                     {QStringLiteral("workspaces"), QStringLiteral("hosts")});
    tool.prepare = [](const QJsonObject&) -> Expected<ActionRequest> {
        ActionRequest request;
        request.kind = ActionKind::List;
        return request;
    };
    tool.run = [sandboxes](const McpCall&) {
        QJsonArray list;
        QJsonArray hosts;
        QStringList errors;
        for (const McpSandboxes::Host& host : sandboxes->hosts()) {
            QJsonObject hostEntry{{QStringLiteral("uri"), host.connection->uri()}};
            if (auto listed = listHostWorkspaces(*host.connection)) {
                for (const QJsonValue& entry : listed.value())
                    list.append(entry);
            } else {
                hostEntry.insert(QStringLiteral("error"), listed.error().message);
                errors << listed.error().message;
            }
            hosts.append(hostEntry);
        }
        // One host that answers is an answer; the others' errors are in `hosts`.
        if (errors.size() == hosts.size())
            return McpToolResult::failure(errors.join(QStringLiteral("; ")));
        McpToolResult result;
        result.structured = {{QStringLiteral("workspaces"), list}, {QStringLiteral("hosts"), hosts}};
        return result;
    };
    return tool;
}

McpTool createWorkspaceTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("create_workspace");
    tool.title = QStringLiteral("Create a workspace");
    tool.description = QStringLiteral(
        "Creates a persistent workspace (a named microVM whose files and processes persist) and "
        "starts it unless start is false. exec waits for a starting workspace.");
    tool.kind = ActionKind::Create;
    tool.inputSchema = objectSchema(
        {{QStringLiteral("name"),
          stringSchema(QStringLiteral("1-40 of a-z, 0-9 and -, starting with a letter or digit."))},
         {QStringLiteral("memory_mib"),
          integerSchema(QStringLiteral("Guest memory, MiB; default 512, 1024 for image browser."), 128, 65536)},
         {QStringLiteral("vcpus"), integerSchema(QStringLiteral("Guest vCPUs; default 1."), 1, 64)},
         {QStringLiteral("disk_gib"),
          integerSchema(QStringLiteral("Disk size, GiB; default 4 (at least the image's)."), 1,
                        4096)},
         {QStringLiteral("network"),
          enumSchema(QStringLiteral("none (default: no network interface), nat (outgoing IPv4) or "
                                    "allowlist (HTTP(S) through the workbench's proxy, each "
                                    "destination allowed by the policy's network rules or a person)."),
                     {QStringLiteral("none"), QStringLiteral("nat"), QStringLiteral("allowlist")})},
         {QStringLiteral("image"),
          stringSchema(QStringLiteral("Guest image template; default minimal. \"browser\" has a headless "
                                      "browser for the browser_* tools."))},
         {QStringLiteral("start"),
          booleanSchema(QStringLiteral("Start it at once; default true."))},
         {QStringLiteral("host"), hostSchema()}},
        {QStringLiteral("name")});
    tool.outputSchema = stateOutputSchema();
    tool.prepare = [](const QJsonObject& json) -> Expected<ActionRequest> {
        const Arguments arguments(json);
        auto name = arguments.requiredString(QStringLiteral("name"));
        if (!name)
            return name.error();
        if (auto valid = validateWorkspaceName(name.value()); !valid)
            return valid.error();
        for (auto check : {arguments.integer(QStringLiteral("memory_mib"), 512, 128, 65536),
                           arguments.integer(QStringLiteral("vcpus"), 1, 1, 64),
                           arguments.integer(QStringLiteral("disk_gib"), 4, 1, 4096)})
            if (!check)
                return check.error();
        if (auto network = arguments.choice(QStringLiteral("network"),
                                            {QStringLiteral("none"), QStringLiteral("nat"),
                                             QStringLiteral("allowlist")},
                                            QStringLiteral("none"));
            !network)
            return network.error();
        if (auto start = arguments.boolean(QStringLiteral("start"), true); !start)
            return start.error();
        if (auto image = arguments.string(QStringLiteral("image"), QStringLiteral("minimal")); !image)
            return image.error();
        ActionRequest request;
        request.kind = ActionKind::Create;
        request.sandbox = name.value();
        return request;
    };
    tool.run = [sandboxes](const McpCall& call) {
        const Arguments arguments(call.arguments);
        WorkspaceSettings settings;
        settings.recipe = arguments.string(QStringLiteral("image"), QStringLiteral("minimal")).value();
        settings.memoryMiB = arguments
                                 .integer(QStringLiteral("memory_mib"), defaultWorkspaceMemoryMiB(settings.recipe), 128, 65536)
                                 .value();
        settings.vcpus = arguments.integer(QStringLiteral("vcpus"), 1, 1, 64).value();
        settings.diskGiB = arguments.integer(QStringLiteral("disk_gib"), 4, 1, 4096).value();
        parseWorkspaceNetwork(
            arguments.string(QStringLiteral("network"), QStringLiteral("none")).value(),
            &settings.network);
        const auto host = sandboxes->host(arguments.string(QStringLiteral("host"), {}).value());
        if (!host)
            return McpToolResult::failure(host.error().message);
        // A workspace is named without its host: a name on another host would hide this one.
        if (auto existing = sandboxes->workspace(call.request.sandbox))
            return McpToolResult::failure(QStringLiteral("workspace '%1' exists already on %2")
                                              .arg(call.request.sandbox, existing.value()->connection().uri()));
        auto created = Workspace::create(*host->connection, call.request.sandbox, settings);
        if (!created)
            return McpToolResult::failure(created.error().message);
        std::shared_ptr<Workspace> workspace = std::move(created.value());
        sandboxes->adopt(workspace);
        if (arguments.boolean(QStringLiteral("start"), true).value()) {
            if (auto started = workspace->start(); !started)
                return McpToolResult::failure(started.error().message);
        }
        McpToolResult result;
        result.structured = {{QStringLiteral("workspace"), workspace->name()},
                             {QStringLiteral("state"), workspaceStateName(workspace->state())}};
        return result;
    };
    return tool;
}

/// exec's arguments: workspace, argv or command, cwd, timeout, env.
QJsonObject execInputSchema()
{
    return objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("argv"),
          QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                      {QStringLiteral("items"),
                       QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}},
                      {QStringLiteral("minItems"), 1},
                      {QStringLiteral("description"),
                       QStringLiteral("Program and arguments. Give argv or command.")}}},
         {QStringLiteral("command"),
          stringSchema(QStringLiteral("A sh command line. Give argv or command."))},
         {QStringLiteral("cwd"),
          stringSchema(QStringLiteral("Working folder in the guest; default /root."))},
         {QStringLiteral("timeout"),
          integerSchema(
              QStringLiteral("Seconds before the command is killed; default 60, 0 = none."), 0,
              kMaxTimeoutSeconds)},
         {QStringLiteral("env"),
          QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                      {QStringLiteral("additionalProperties"),
                       QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}},
                      {QStringLiteral("description"),
                       QStringLiteral("Environment variables for this command.")}}}},
        {QStringLiteral("workspace")});
}

/// exec's request as the gate and the approver see it: the command line (argv quoted as
/// shell words), the resolved working folder, the environment as VAR=value.
Expected<ActionRequest> prepareExec(const QJsonObject& json)
{
    const Arguments arguments(json);
    auto request = workspaceRequest(arguments, ActionKind::Exec);
    if (!request)
        return request;
    const QJsonValue argv = json.value(QLatin1String("argv"));
    const bool hasCommand = json.contains(QLatin1String("command"));
    if (argv.isUndefined() == !hasCommand)
        return makeError(QStringLiteral("give exactly one of argv and command"));
    if (hasCommand) {
        auto command = arguments.requiredString(QStringLiteral("command"));
        if (!command)
            return command.error();
        request->command = command.value();
    } else {
        QStringList words;
        for (const QJsonValue& word : argv.toArray()) {
            if (!word.isString())
                return makeError(QStringLiteral("argv must be an array of strings"));
            words << word.toString();
        }
        if (!argv.isArray() || words.isEmpty())
            return makeError(QStringLiteral("argv must be a non-empty array of strings"));
        request->command = shellWords(words);
    }
    auto cwd = guestPath(arguments, QStringLiteral("cwd"), QStringLiteral("/root"));
    if (!cwd)
        return cwd.error();
    request->workdir = cwd.value();
    if (auto timeout = arguments.integer(QStringLiteral("timeout"), 60, 0, kMaxTimeoutSeconds);
        !timeout)
        return timeout.error();
    const QJsonValue env = json.value(QLatin1String("env"));
    if (!env.isUndefined() && !env.isObject())
        return makeError(QStringLiteral("env must be an object of strings"));
    const QJsonObject variables = env.toObject();
    for (auto it = variables.begin(); it != variables.end(); ++it) {
        if (auto valid = validateVariableName(it.key()); !valid)
            return makeError(QStringLiteral("env: ") + valid.error().message);
        if (!it.value().isString())
            return makeError(QStringLiteral("env.%1 must be a string").arg(it.key()));
        request->environment << it.key() + QLatin1Char('=') + it.value().toString();
    }
    return request;
}

/// Runs an approved exec in its workspace and makes its result: output, status, limits.
McpToolResult runExec(McpSandboxes& sandboxes, const McpCall& call)
{
    auto workspace = sandboxes.workspace(call.request.sandbox);
    if (!workspace)
        return McpToolResult::failure(workspace.error().message);
    auto checkpoint = checkpointBeforeApproved(*workspace.value(), call);
    if (!checkpoint)
        return McpToolResult::failure(checkpoint.error().message);
    const Arguments arguments(call.arguments);
    // The variables the approver saw (ActionRequest::environment), not the raw arguments.
    WorkspaceEnvironment env;
    for (const QString& variable : call.request.environment)
        env.set(variable.section(QLatin1Char('='), 0, 0), variable.section(QLatin1Char('='), 1),
                false);
    WorkspaceCommandOptions options;
    // The log row shows the variables before the command, as the policy matched it.
    options.command = commandWithEnvironment(call.request);
    options.workdir = call.request.workdir;
    options.shellCommand =
        env.exportLines() + workspaceShellCommand(call.request.command, call.request.workdir);
    const int seconds =
        arguments.integer(QStringLiteral("timeout"), 60, 0, kMaxTimeoutSeconds).value();
    options.timeout = std::chrono::seconds(seconds);
    options.readyDeadline = McpSandboxes::readyDeadline(workspace.value()->connection());
    options.actor = call.request.actor;
    // The client's cancel kills the command's process group, as the timeout does.
    options.cancel = call.cancel;
    McpCommandOutput output;
    options.onOutput = [&](OutputStream stream, QByteArrayView bytes) {
        output.add(stream, bytes);
        call.log->output(stream, bytes);
    };
    const WorkspaceCommandResult command = runWorkspaceCommand(*workspace.value(), options);
    if (command.status.cancelled || (!command.error.isEmpty() && call.cancel && *call.cancel)) {
        auto cancelled =
            McpToolResult::failure(QStringLiteral("cancelled"), Outcome::Cancelled);
        cancelled.end.exitStatus = command.status.exitStatus;
        cancelled.end.signal = command.status.signal;
        return cancelled;
    }
    if (!command.error.isEmpty())
        return McpToolResult::failure(command.error);
    McpToolResult result;
    result.structured = output.structured(command.status, command.wallMs, call.log->id());
    if (!checkpoint->isEmpty())
        result.structured.insert(QStringLiteral("checkpoint_before"), checkpoint.value());
    result.structuredOnly = {QStringLiteral("stdout"), QStringLiteral("stderr")};
    result.end = LoggedAction::endOf(Expected<ExecStatus>(command.status));
    addFileChanges(result, command.fileChanges);
    if (command.limit) {
        result.error =
            command.status.timedOut
                ? QStringLiteral("timed out after %1 s: the command was killed").arg(seconds)
                : command.limitNote;
        result.end.error = result.error;
    }
    return result;
}

McpTool execTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("exec");
    tool.title = QStringLiteral("Run a command in a workspace");
    tool.description = QStringLiteral(
        "Runs a command in a running workspace as root: argv (run as is, no shell) or command "
        "(a sh command line). Returns stdout, stderr, exit status or signal, and the files it "
        "created, modified and deleted under /root and its working folder (with diffs of small "
        "text files).");
    tool.kind = ActionKind::Exec;
    tool.inputSchema = execInputSchema();
    tool.outputSchema = withFileChangesSchema(McpCommandOutput::schema());
    {
        QJsonObject properties = tool.outputSchema.value(QLatin1String("properties")).toObject();
        properties.insert(QStringLiteral("checkpoint_before"),
                          stringSchema(QStringLiteral("The checkpoint taken before it ran, when the workspace takes one "
                                                      "before each approved action; absent otherwise.")));
        tool.outputSchema.insert(QStringLiteral("properties"), properties);
    }
    tool.prepare = prepareExec;
    tool.run = [sandboxes](const McpCall& call) { return runExec(*sandboxes, call); };
    return tool;
}

McpTool lifecycleTool(std::shared_ptr<McpSandboxes> sandboxes, const QString& name, ActionKind kind,
                      const QString& description, Expected<void> (Workspace::*action)())
{
    McpTool tool;
    tool.name = name;
    tool.title = name.left(1).toUpper() + name.mid(1) + QStringLiteral(" a workspace");
    tool.description = description;
    tool.kind = kind;
    tool.inputSchema = objectSchema({{QStringLiteral("workspace"), workspaceProperty()}},
                                    {QStringLiteral("workspace")});
    tool.outputSchema = stateOutputSchema();
    tool.prepare = [kind](const QJsonObject& json) {
        return workspaceRequest(Arguments(json), kind);
    };
    tool.run = [sandboxes, action](const McpCall& call) {
        auto workspace = sandboxes->workspace(call.request.sandbox);
        if (!workspace)
            return McpToolResult::failure(workspace.error().message);
        if (auto done = (workspace.value().get()->*action)(); !done)
            return McpToolResult::failure(done.error().message);
        McpToolResult result;
        result.structured = {
            {QStringLiteral("workspace"), workspace.value()->name()},
            {QStringLiteral("state"), workspaceStateName(workspace.value()->state())}};
        return result;
    };
    return tool;
}

McpTool checkpointTool(std::shared_ptr<McpSandboxes> sandboxes)
{
    McpTool tool;
    tool.name = QStringLiteral("checkpoint");
    tool.title = QStringLiteral("Checkpoint a workspace");
    tool.description = QStringLiteral(
        "Takes a named checkpoint (disk and memory) of a running or paused workspace; a person "
        "can revert the workspace to it.");
    tool.kind = ActionKind::Checkpoint;
    tool.inputSchema = objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("name"), stringSchema(QStringLiteral("1-64 of A-Z a-z 0-9 . _ -"))},
         {QStringLiteral("note"), stringSchema(QStringLiteral("Kept with the checkpoint."))}},
        {QStringLiteral("workspace"), QStringLiteral("name")});
    tool.outputSchema = objectSchema(
        {{QStringLiteral("workspace"), workspaceProperty()},
         {QStringLiteral("checkpoint"), stringSchema(QStringLiteral("Its name."))},
         {QStringLiteral("created"), stringSchema(QStringLiteral("UTC, ISO 8601."))}},
        {QStringLiteral("workspace"), QStringLiteral("checkpoint"), QStringLiteral("created")});
    tool.prepare = [](const QJsonObject& json) -> Expected<ActionRequest> {
        const Arguments arguments(json);
        auto request = workspaceRequest(arguments, ActionKind::Checkpoint);
        if (!request)
            return request;
        auto name = arguments.requiredString(QStringLiteral("name"));
        if (!name)
            return name.error();
        if (auto note = arguments.string(QStringLiteral("note"), {}); !note)
            return note.error();
        request->command = name.value();
        return request;
    };
    tool.run = [sandboxes](const McpCall& call) {
        auto workspace = sandboxes->workspace(call.request.sandbox);
        if (!workspace)
            return McpToolResult::failure(workspace.error().message);
        auto info = workspace.value()->checkpoint(
            call.request.command, call.arguments.value(QLatin1String("note")).toString());
        if (!info)
            return McpToolResult::failure(info.error().message);
        McpToolResult result;
        result.structured = {{QStringLiteral("workspace"), workspace.value()->name()},
                             {QStringLiteral("checkpoint"), info->name},
                             {QStringLiteral("created"), info->created.toString(Qt::ISODate)}};
        return result;
    };
    return tool;
}

} // namespace

Expected<QString> checkpointBeforeApproved(Workspace& workspace, const McpCall& call)
{
    if (call.approval != Approval::Approved)
        return QString();
    auto asked = loadCheckpointBeforeApproved(workspace.name());
    if (!asked)
        return asked.error();
    if (!asked.value())
        return QString();
    const QString name = QStringLiteral("before-%1").arg(call.log ? call.log->id() : QDateTime::currentSecsSinceEpoch());
    const QString note = QStringLiteral("before log row %1, approved: %2 %3")
                             .arg(call.log ? call.log->id() : 0)
                             .arg(actionKindName(call.request.kind), actionSubject(call.request).left(200));
    if (auto taken = workspace.checkpoint(name, note); !taken)
        return makeError(QStringLiteral("not run: the checkpoint before it failed: %1").arg(taken.error().message));
    return name;
}

void McpSandboxes::addHost(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool)
{
    std::lock_guard lock(m_mutex);
    m_hosts.push_back({connection, std::move(pool)});
}

std::vector<McpSandboxes::Host> McpSandboxes::hosts() const
{
    std::lock_guard lock(m_mutex);
    return m_hosts;
}

Expected<McpSandboxes::Host> McpSandboxes::host(const QString& uri) const
{
    const std::vector<Host> all = hosts();
    if (uri.isEmpty())
        return all.front();
    QStringList uris;
    for (const Host& host : all) {
        if (host.connection->uri() == uri)
            return host;
        uris << host.connection->uri();
    }
    return makeError(QStringLiteral("no host %1; the hosts are: %2").arg(uri, uris.join(QStringLiteral(", "))));
}

Expected<std::shared_ptr<Workspace>> McpSandboxes::workspace(const QString& name)
{
    {
        std::lock_guard lock(m_mutex);
        if (auto found = m_workspaces.find(name); found != m_workspaces.end())
            return found->second;
    }
    const std::vector<Host> all = hosts();
    QStringList answers;
    for (const Host& host : all) {
        auto opened = Workspace::open(*host.connection, name);
        if (!opened) {
            if (all.size() == 1)
                return opened.error();
            answers << host.connection->uri() + QStringLiteral(": ") + opened.error().message;
            continue;
        }
        std::shared_ptr<Workspace> workspace = std::move(opened.value());
        std::lock_guard lock(m_mutex);
        return m_workspaces.emplace(name, workspace).first->second;
    }
    return makeError(QStringLiteral("no workspace named '%1' on any host (%2)").arg(name, answers.join(QStringLiteral("; "))));
}

Expected<std::shared_ptr<BrowserSession>> McpSandboxes::browser(const QString& name)
{
    auto workspace = this->workspace(name);
    if (!workspace)
        return workspace.error();
    {
        std::lock_guard lock(m_mutex);
        if (auto found = m_browsers.find(name); found != m_browsers.end() && found->second->workspace() == workspace.value())
            return found->second;
    }
    // Made without the lock: the main thread, which makes it, may itself wait for the lock.
    const bool kvm = workspace.value()->connection().accelerator() == Accelerator::Kvm;
    const auto make = [&] {
        return std::shared_ptr<BrowserSession>(new BrowserSession(workspace.value(), std::chrono::seconds(kvm ? 30 : 120)),
                                               [](BrowserSession* session) { session->deleteLater(); });
    };
    QObject* home = QCoreApplication::instance();
    std::shared_ptr<BrowserSession> session;
    if (QThread::currentThread() == home->thread())
        session = make();
    else
        QMetaObject::invokeMethod(home, [&] { session = make(); }, Qt::BlockingQueuedConnection);
    // Another call may have made one meanwhile: the first kept wins, this one is dropped.
    std::lock_guard lock(m_mutex);
    std::shared_ptr<BrowserSession>& kept = m_browsers[name];
    if (!kept || kept->workspace() != workspace.value())
        kept = session;
    return kept;
}

void McpSandboxes::adopt(std::shared_ptr<Workspace> workspace)
{
    std::lock_guard lock(m_mutex);
    m_workspaces[workspace->name()] = std::move(workspace);
}

std::chrono::steady_clock::time_point McpSandboxes::readyDeadline(const HypervisorConnection& connection)
{
    const bool kvm = connection.accelerator() == Accelerator::Kvm;
    return std::chrono::steady_clock::now() + std::chrono::seconds(kvm ? 30 : 120);
}

QString McpSandboxes::policyFile() const
{
    std::lock_guard lock(m_mutex);
    return m_policyFile.isEmpty() ? Policy::defaultPath() : m_policyFile;
}

void McpSandboxes::setPolicyFile(const QString& path)
{
    std::lock_guard lock(m_mutex);
    m_policyFile = path;
}

QList<McpTool> workbenchTools(std::shared_ptr<McpSandboxes> sandboxes)
{
    QList<McpTool> tools{runCodeTool(sandboxes), listWorkspacesTool(sandboxes),
                         createWorkspaceTool(sandboxes), execTool(sandboxes)};
    tools += mcpFileTools(sandboxes);
    tools += mcpBrowserTools(sandboxes);
    tools += QList<McpTool>{
        lifecycleTool(sandboxes, QStringLiteral("pause"), ActionKind::Pause,
                      QStringLiteral("Pauses a running workspace: its vCPUs stop, memory stays."),
                      &Workspace::pause),
        lifecycleTool(sandboxes, QStringLiteral("resume"), ActionKind::Resume,
                      QStringLiteral("Resumes a paused workspace."), &Workspace::resume),
        checkpointTool(sandboxes), forkWorkspaceTool(sandboxes)};
    return tools;
}

} // namespace sbw
