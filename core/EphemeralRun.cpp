#include "EphemeralRun.h"

#include "GuestLimitProbe.h"
#include "GuestSession.h"
#include "LoggedAction.h"
#include "Logging.h"
#include "RunInputFiles.h"
#include "SandboxLimits.h"
#include "SandboxPool.h"
#include "SftpClient.h"
#include "SignalText.h"

#include <QElapsedTimer>

#include <future>
#include <optional>
#include <thread>

namespace sbw {
namespace {

/// The script's working folder in the guest, and the folder of its artifacts below it.
const QByteArray kRunFolder = QByteArrayLiteral("/root/run");
const QByteArray kOutFolder = QByteArrayLiteral("/root/run/out");

/// Scripts up to this size travel inside the command line (bash's built-in printf writes them);
/// larger ones, and any holding a NUL byte, on the channel's stdin through `cat`. Linux caps one
/// argument at 128 KiB (MAX_ARG_STRLEN) and quoting can grow a script fourfold.
constexpr qsizetype kInlineScriptBytes = 24 * 1024;

/// `bytes` as one single-quoted shell word: every byte literal, `'` written as '\''.
QByteArray shellQuoted(const QByteArray& bytes)
{
    QByteArray quoted = bytes;
    quoted.replace('\'', QByteArrayLiteral("'\\''"));
    return '\'' + quoted + '\'';
}

/// The shell command that writes `code` to main.py or main.sh in the run's folder and runs it,
/// and what goes to its stdin. Each program the command starts costs 60-130 ms under TCG, so
/// it starts only the interpreter: the initramfs made the folders (sbw.run=1; `mkdir` runs only
/// when they are missing) and a small script is written by the shell's printf, not by `cat`.
/// The interpreter runs with stdin at EOF either way.
struct Launch
{
    QByteArray command;
    QByteArray stdinData;
};

Launch launch(Language language, const QByteArray& code)
{
    const QByteArray file = language == Language::Python ? "main.py" : "main.sh";
    const QByteArray run = language == Language::Python ? "exec python3 -u main.py" : "exec sh main.sh";
    Launch launch;
    launch.command = "cd " + kRunFolder + " 2>/dev/null || { mkdir -p " + kOutFolder + " && cd " + kRunFolder
                     + "; } && { [ -d out ] || mkdir out; } && ";
    if (code.size() <= kInlineScriptBytes && !code.contains('\0')) {
        launch.command += "printf %s " + shellQuoted(code) + " >" + file + " && " + run;
    } else {
        launch.command += "cat >" + file + " && " + run;
        launch.stdinData = code;
    }
    return launch;
}

/// The script's timeout under RunOptions::timeout and what is left of RunOptions::lifetime.
struct ScriptLimits
{
    std::chrono::milliseconds timeout{0}; ///< for ExecRequest; 0 = none
    bool lifetimeBinds = false;           ///< the lifetime, not the timeout, sets it
    bool lifetimeOver = false;            ///< nothing left: do not start the script
};

ScriptLimits scriptLimits(const RunOptions& options, std::chrono::milliseconds elapsed)
{
    ScriptLimits limits;
    limits.timeout = options.timeout;
    if (options.lifetime.count() <= 0)
        return limits;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(options.lifetime) - elapsed;
    limits.lifetimeOver = left.count() <= 0;
    if (options.timeout.count() == 0 || left < limits.timeout) {
        limits.timeout = left;
        limits.lifetimeBinds = true;
    }
    return limits;
}

QString lifetimeNote(const RunOptions& options)
{
    return QStringLiteral("the session lifetime of %1 s ran out; the script was killed")
        .arg(options.lifetime.count());
}

/// After a script that failed on its own (non-zero status or a signal the host did not send):
/// whether the guest's OOM killer ran or its root file system is full, and what to say.
void lookForGuestLimits(Sandbox& sandbox, const RunOptions& options, RunResult& result)
{
    auto report = probeGuestLimits(sandbox.session());
    if (!report) {
        qCWarning(lcRun) << "cannot ask" << result.domainName << "about its memory and disk:"
                         << report.error().message;
        return;
    }
    if (report->oomKills > 0) {
        result.limit = RunLimit::Memory;
        result.limitNote =
            QStringLiteral("the memory limit of %1 MiB was hit: the guest's kernel killed %2 for "
                           "lack of memory")
                .arg(options.sandbox.memoryMiB)
                .arg(report->oomVictim.isEmpty() ? QStringLiteral("a process") : report->oomVictim);
    } else if (report->rootFull()) {
        result.limit = RunLimit::Disk;
        result.limitNote =
            QStringLiteral("the disk limit of %1 was hit: the guest's root file system is full")
                .arg(gibText(sandbox.diskBytes()));
    }
}

/// Copies the script's out/ folder to <artifactsRoot>/<domain>/out and records it in `result`.
void fetchArtifacts(Expected<std::unique_ptr<SftpClient>>& sftp, const RunOptions& options, RunResult& result)
{
    if (!sftp) {
        result.artifactsNote = QStringLiteral("the run's out/ folder could not be read: %1")
                                   .arg(sftp.error().message);
        return;
    }
    const QString root = options.artifactsRoot.isEmpty() ? runsFolder() : options.artifactsRoot;
    const QString folder = root + QLatin1Char('/') + result.domainName + QStringLiteral("/out");
    ArtifactCollection collection = collectArtifacts(*sftp.value(), kOutFolder, folder, options.artifactCaps);
    result.artifacts = std::move(collection.artifacts);
    result.artifactsNote = std::move(collection.note);
    if (!result.artifacts.isEmpty())
        result.artifactsFolder = folder;
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

QString limitName(RunLimit limit)
{
    switch (limit) {
    case RunLimit::Timeout:
        return QStringLiteral("timeout");
    case RunLimit::Lifetime:
        return QStringLiteral("lifetime");
    case RunLimit::OutputCap:
        return QStringLiteral("output cap");
    case RunLimit::Memory:
        return QStringLiteral("memory limit");
    case RunLimit::Disk:
        return QStringLiteral("disk limit");
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
    if (limit == RunLimit::OutputCap)
        return 128 + 9; // its output is incomplete even when the script ended before the kill
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
    if (!limitNote.isEmpty())
        return limitNote;
    if (timedOut)
        return QStringLiteral("timed out after %1 ms and killed").arg(wallMs);
    if (signal)
        return QStringLiteral("killed by signal %1").arg(signalText(*signal));
    if (exitStatus)
        return QStringLiteral("exit status %1").arg(*exitStatus);
    return QStringLiteral("ended without an exit status");
}

namespace {

/// The command-log row of a run on `sandbox` (the domain name, or "ephemeral run" when it
/// failed before its domain existed).
ActionStart runLogStart(const RunOptions& options, const QString& sandbox)
{
    ActionStart start;
    start.sandbox = sandbox.isEmpty() ? QStringLiteral("ephemeral run") : sandbox;
    start.actor = options.actor;
    start.kind = ActionKind::Run;
    start.command = QString::fromUtf8(options.code);
    start.workdir = QStringLiteral("/root/run");
    return start;
}

ActionEnd runLogEnd(const RunResult& result)
{
    ActionEnd end;
    end.exitStatus = result.exitStatus;
    end.signal = result.signal;
    end.error = result.error.isEmpty() ? result.limitNote : result.error;
    end.artifactsDir = result.artifactsFolder;
    if (!result.error.isEmpty())
        end.outcome = Outcome::Error;
    else if (result.cancelled)
        end.outcome = Outcome::Cancelled;
    else if (result.timedOut)
        end.outcome = Outcome::TimedOut;
    else if (result.signal || result.exitStatus.value_or(-1) != 0 || result.limit)
        end.outcome = Outcome::Failed;
    else
        end.outcome = Outcome::Succeeded;
    return end;
}

} // namespace

RunResult runEphemeral(HypervisorConnection& connection, const RunOptions& options,
                       const RunCallbacks& callbacks, const std::atomic_bool* cancel)
{
    RunResult result;
    std::optional<LoggedAction> logged; // from the domain's start to the result
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
        if (!logged)
            logged.emplace(options.log, runLogStart(options, result.domainName));
        logged->finish(runLogEnd(result));
        phase(RunPhase::Finished);
        qCInfo(lcRun) << "run" << result.domainName << "finished:" << result.summary()
                      << "boot" << result.bootMs << "ms, script" << result.wallMs << "ms";
        return result;
    };

    auto inputs = checkInputFiles(options.inputFiles);
    if (!inputs)
        return finish(inputs.error().message);

    phase(RunPhase::Connecting);
    if (auto opened = connection.ensureOpen(); !opened)
        return finish(opened.error().message);
    if (cancelled())
        return finish({});

    phase(RunPhase::Preparing);
    QElapsedTimer boot;
    boot.start();
    std::unique_ptr<Sandbox> sandbox = options.pool ? options.pool->take(options.sandbox) : nullptr;
    result.preBooted = sandbox != nullptr;
    if (!sandbox) {
        auto started = Sandbox::start(connection, options.sandbox);
        if (!started)
            return finish(started.error().message);
        sandbox = std::move(started.value());
    }
    result.domainName = sandbox->domainName();
    logged.emplace(options.log, runLogStart(options, result.domainName));
    // The run's SFTP session: opened for the input files before the script, else while the
    // script runs (sftpOpening), and used for its out/ folder after it.
    std::optional<Expected<std::unique_ptr<SftpClient>>> sftp;
    std::future<Expected<std::unique_ptr<SftpClient>>> sftpOpening;
    bool guestReady = result.preBooted;
    const auto destroy = [&] {
        phase(RunPhase::CleaningUp);
        if (sftpOpening.valid()) { // its thread waits on the session: end the session first
            sandbox->session().close();
            sftpOpening.wait();
        }
        sftp.reset();
        sandbox.reset();
        // The next run's sandbox boots now, while this run's result is being read; not after
        // a guest that never became ready.
        if (options.pool && guestReady)
            options.pool->refill(options.sandbox);
    };

    if (!result.preBooted) {
        phase(RunPhase::Booting);
        boot.restart();
        if (auto ready = sandbox->waitReady(cancel); !ready) {
            destroy();
            return finish(cancelled() ? QString() : ready.error().message);
        }
    }
    result.bootMs = boot.elapsed();
    guestReady = true;
    if (!inputs->isEmpty()) {
        sftp = sandbox->session().openSftp();
        auto uploaded = *sftp ? uploadInputFiles(*sftp->value(), inputs.value(), kRunFolder)
                              : Expected<void>(makeError(QStringLiteral("cannot upload the input files: %1")
                                                             .arg(sftp->error().message)));
        if (!uploaded) {
            destroy();
            return finish(cancelled() ? QString() : uploaded.error().message);
        }
    }
    if (callbacks.onSessionReady)
        callbacks.onSessionReady(sandbox->sharedSession());

    phase(RunPhase::Running);
    const ScriptLimits limits = scriptLimits(options, std::chrono::milliseconds(total.elapsed()));
    if (limits.lifetimeOver) {
        result.timedOut = true;
        result.limit = RunLimit::Lifetime;
        result.limitNote = lifetimeNote(options);
        destroy();
        return finish({});
    }
    // The session watches one cancel flag: ours, raised by the caller's flag or the output cap.
    std::atomic_bool stop{false};
    std::atomic_bool execDone{false};
    std::thread relay;
    if (cancel)
        relay = std::thread([&] {
            while (!execDone && !*cancel)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            if (*cancel)
                stop = true;
        });
    const auto keep = [&](QByteArray& kept, QByteArrayView bytes, OutputStream which,
                          const std::function<void(QByteArrayView)>& forward) {
        const char* stream = which == OutputStream::Stdout ? "stdout" : "stderr";
        const qint64 cap = options.outputCapBytes;
        if (cap > 0 && kept.size() + bytes.size() > cap) {
            bytes = bytes.first(std::max<qsizetype>(cap - kept.size(), 0));
            if (!result.limit) {
                result.limit = RunLimit::OutputCap;
                result.limitNote = QStringLiteral("%1 passed the output cap of %2 bytes; the rest "
                                                  "was dropped")
                                       .arg(QLatin1String(stream))
                                       .arg(cap);
            }
            stop = true;
        }
        kept.append(bytes);
        logged->output(which, bytes);
        if (forward && !bytes.isEmpty())
            forward(bytes);
    };
    Launch script = launch(options.language, options.code);
    ExecRequest request;
    request.command = std::move(script.command);
    request.stdinData = std::move(script.stdinData);
    request.timeout = limits.timeout;
    request.cancel = &stop;
    request.onStdout = [&](QByteArrayView bytes) { keep(result.stdoutData, bytes, OutputStream::Stdout, callbacks.onStdout); };
    request.onStderr = [&](QByteArrayView bytes) { keep(result.stderrData, bytes, OutputStream::Stderr, callbacks.onStderr); };
    if (!sftp)
        sftpOpening = std::async(std::launch::async, [&session = sandbox->session()] { return session.openSftp(); });
    QElapsedTimer wall;
    wall.start();
    auto status = sandbox->session().exec(request);
    result.wallMs = wall.elapsed();
    const bool guestAnswered = status.ok(); // else the session may be stuck: fetch nothing
    execDone = true;
    if (relay.joinable())
        relay.join();
    if (!status) {
        // A script the host had stopped (timeout, lifetime, output cap, cancel) that the guest
        // did not end — a fork bomb can leave it no process to run the kill with — ends with its
        // microVM, destroyed below: the run ended by that decision, not by a failure.
        const bool expired = limits.timeout.count() > 0 && wall.elapsed() >= limits.timeout.count();
        if (!expired && !stop) {
            destroy();
            return finish(status.error().message);
        }
        qCWarning(lcRun) << "the guest did not end the stopped script of" << result.domainName
                         << "(" << status.error().message << "); destroying its microVM";
        ExecStatus ended;
        ended.signal = 9; // what destroying the microVM amounts to
        ended.cancelled = stop;
        ended.timedOut = expired && !stop;
        status = ended;
    }
    if (result.limit == RunLimit::OutputCap && status->signal)
        result.limitNote += QLatin1String(" and the script killed");
    result.exitStatus = status->exitStatus;
    result.signal = status->signal;
    result.timedOut = status->timedOut;
    result.cancelled = status->cancelled && cancelled();
    if (status->timedOut) {
        result.limit = limits.lifetimeBinds ? RunLimit::Lifetime : RunLimit::Timeout;
        if (limits.lifetimeBinds)
            result.limitNote = lifetimeNote(options);
    }
    const bool failed = status->signal || status->exitStatus.value_or(0) != 0;
    if (failed && !status->timedOut && !status->cancelled && !result.limit)
        lookForGuestLimits(*sandbox, options, result);
    if (guestAnswered && !cancelled()) {
        if (!sftp)
            sftp = sftpOpening.get();
        fetchArtifacts(*sftp, options, result);
    }
    result.totalMs = total.elapsed();
    if (callbacks.onResult)
        callbacks.onResult(result);
    destroy();
    return finish({});
}

} // namespace sbw
