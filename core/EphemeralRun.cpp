#include "EphemeralRun.h"

#include "GuestSession.h"
#include "Logging.h"

#include <QElapsedTimer>

namespace sbw {
namespace {

QByteArray launchCommand(Language language)
{
    // The script arrives on stdin; the interpreter then runs with stdin at EOF.
    const QByteArray prepare = "mkdir -p /root/run && cd /root/run && ";
    if (language == Language::Python)
        return prepare + "cat > main.py && exec python3 -u main.py";
    return prepare + "cat > main.sh && exec sh main.sh";
}

} // namespace

QString languageName(Language language)
{
    return language == Language::Python ? QStringLiteral("python") : QStringLiteral("sh");
}

std::optional<Language> parseLanguage(const QString& name)
{
    if (name == QLatin1String("python") || name == QLatin1String("python3"))
        return Language::Python;
    if (name == QLatin1String("sh") || name == QLatin1String("shell"))
        return Language::Shell;
    return std::nullopt;
}

QString phaseName(RunPhase phase)
{
    switch (phase) {
    case RunPhase::Connecting:
        return QStringLiteral("connecting");
    case RunPhase::Preparing:
        return QStringLiteral("preparing");
    case RunPhase::Booting:
        return QStringLiteral("booting");
    case RunPhase::Running:
        return QStringLiteral("running");
    case RunPhase::CleaningUp:
        return QStringLiteral("cleaning up");
    case RunPhase::Finished:
        return QStringLiteral("finished");
    }
    return {};
}

int RunResult::cliExitCode() const
{
    if (!error.isEmpty())
        return kWorkbenchError;
    if (timedOut)
        return 124;
    if (cancelled)
        return 130;
    if (signal)
        return 128 + *signal;
    return exitStatus.value_or(kWorkbenchError);
}

QString RunResult::summary() const
{
    if (!error.isEmpty())
        return error;
    if (cancelled)
        return QStringLiteral("cancelled");
    if (timedOut)
        return QStringLiteral("timed out after %1 ms and killed").arg(wallMs);
    if (signal)
        return QStringLiteral("killed by signal %1").arg(*signal);
    if (exitStatus)
        return QStringLiteral("exit status %1").arg(*exitStatus);
    return QStringLiteral("ended without an exit status");
}

RunResult runEphemeral(HypervisorConnection& connection, const RunOptions& options,
                       const RunCallbacks& callbacks, const std::atomic_bool* cancel)
{
    RunResult result;
    QElapsedTimer total;
    total.start();
    const auto phase = [&](RunPhase p) {
        if (callbacks.onPhase)
            callbacks.onPhase(p);
    };
    const auto cancelled = [&] { return cancel && *cancel; };
    const auto finish = [&](QString error) {
        result.error = std::move(error);
        result.cancelled = result.cancelled || (cancelled() && result.error.isEmpty());
        result.totalMs = total.elapsed();
        phase(RunPhase::Finished);
        qCInfo(lcRun) << "run" << result.domainName << "finished:" << result.summary()
                      << "boot" << result.bootMs << "ms, script" << result.wallMs << "ms";
        return result;
    };

    phase(RunPhase::Connecting);
    if (auto opened = connection.ensureOpen(); !opened)
        return finish(opened.error().message);
    if (cancelled())
        return finish({});

    phase(RunPhase::Preparing);
    auto started = Sandbox::start(connection, options.sandbox);
    if (!started)
        return finish(started.error().message);
    std::unique_ptr<Sandbox> sandbox = std::move(started.value());
    result.domainName = sandbox->domainName();
    const auto destroy = [&] {
        phase(RunPhase::CleaningUp);
        sandbox.reset();
    };

    phase(RunPhase::Booting);
    QElapsedTimer boot;
    boot.start();
    if (auto ready = sandbox->waitReady(cancel); !ready) {
        destroy();
        return finish(cancelled() ? QString() : ready.error().message);
    }
    result.bootMs = boot.elapsed();

    phase(RunPhase::Running);
    ExecRequest request;
    request.command = launchCommand(options.language);
    request.stdinData = options.code;
    request.timeout = options.timeout;
    request.cancel = cancel;
    request.onStdout = [&](QByteArrayView bytes) {
        result.stdoutData.append(bytes);
        if (callbacks.onStdout)
            callbacks.onStdout(bytes);
    };
    request.onStderr = [&](QByteArrayView bytes) {
        result.stderrData.append(bytes);
        if (callbacks.onStderr)
            callbacks.onStderr(bytes);
    };
    QElapsedTimer wall;
    wall.start();
    auto status = sandbox->session().exec(request);
    result.wallMs = wall.elapsed();
    if (!status) {
        destroy();
        return finish(status.error().message);
    }
    result.exitStatus = status->exitStatus;
    result.signal = status->signal;
    result.timedOut = status->timedOut;
    result.cancelled = status->cancelled;
    result.totalMs = total.elapsed();
    if (callbacks.onResult)
        callbacks.onResult(result);
    destroy();
    return finish({});
}

} // namespace sbw
