#include "run/EphemeralRun.h"

#include "base/Logging.h"
#include "base/SignalText.h"
#include "capacity/HostCapacity.h"
#include "capacity/SandboxSlot.h"
#include "hypervisor/ConnectionUri.h"
#include "changes/ChangeScan.h"
#include "guest/GuestLimitProbe.h"
#include "guest/GuestSession.h"
#include "guest/LoopbackClientProbe.h"
#include "guest/SftpClient.h"
#include "guest/ReverseForward.h"
#include "log/LoggedAction.h"
#include "network/GuestEgress.h"
#include "run/OutputCap.h"
#include "run/RunInputFiles.h"
#include "sandbox/SandboxLimits.h"
#include "sandbox/SandboxPool.h"

#include <QElapsedTimer>

#include <future>
#include <optional>

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

/// `beforeScan` (ChangeWatch::beforeScanCommand()) runs after the script is written, so the
/// script's own file is not one of its changes.
Launch launch(Language language, const QByteArray& code, const QByteArray& beforeScan)
{
    const QByteArray file = language == Language::Python ? "main.py" : "main.sh";
    const QByteArray run = language == Language::Python ? "exec python3 -u main.py" : "exec sh main.sh";
    Launch launch;
    launch.command = "cd " + kRunFolder + " 2>/dev/null || { mkdir -p " + kOutFolder + " && cd " + kRunFolder
                     + "; } && { [ -d out ] || mkdir out; } && ";
    if (code.size() <= kInlineScriptBytes && !code.contains('\0')) {
        launch.command += "printf %s " + shellQuoted(code) + " >" + file + " && " + beforeScan + " && " + run;
    } else {
        launch.command += "cat >" + file + " && " + beforeScan + " && " + run;
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
    case RunPhase::Queued:
        return QStringLiteral("queued");
    case RunPhase::SavingState:
        return QStringLiteral("saving a ready microVM for this image (once)");
    case RunPhase::Restoring:
        return QStringLiteral("restoring the saved microVM");
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

QString stagingText(qint64 sentBytes, qint64 totalBytes)
{
    return QStringLiteral("staging the image into the host's storage pool: %1 of %2 MiB")
        .arg(sentBytes >> 20)
        .arg(totalBytes >> 20);
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
    end.fileChanges = result.fileChanges;
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

namespace {

/// One ephemeral run, a method per phase. Each phase returns false when the run ends in it
/// (m_error says why; empty for a cancel or a limit); run() calls them in order, tears the
/// microVM down whatever happened and writes the result and its log row once.
class EphemeralRun
{
public:
    EphemeralRun(HypervisorConnection& connection, const RunOptions& options,
                       const RunCallbacks& callbacks, const std::atomic_bool* cancel)
        : m_connection(connection), m_options(options), m_callbacks(callbacks), m_cancel(cancel)
    {
    }

    RunResult run()
    {
        m_total.start();
        if (prepare() && acquire() && boot() && openEgress() && upload() && execute())
            collect();
        if (m_sandbox)
            teardown();
        return finish();
    }

private:
    /// The input files are checked and the connection opened.
    bool prepare()
    {
        auto inputs = checkInputFiles(m_options.inputFiles);
        if (!inputs)
            return fail(inputs.error().message);
        m_inputs = inputs.value();
        phase(RunPhase::Connecting);
        if (auto opened = m_connection.ensureOpen(); !opened)
            return fail(opened.error().message);
        return !cancelled();
    }

    /// A pre-booted sandbox from the pool, else a new one started; its log row begins.
    bool acquire()
    {
        // A remote host's places are counted on it, from its own cores and memory.
        const bool remote = !isLocalUri(m_connection.uri());
        const int max = maxSandboxes(m_options.maxSandboxes, m_options.sandbox.memoryMiB,
                                     remote ? m_connection.handle() : nullptr);
        QElapsedTimer waited;
        waited.start();
        bool queued = false;
        auto slot = SandboxSlot::acquire(max, [&](int ahead) {
            if (!std::exchange(queued, true))
                phase(RunPhase::Queued);
            if (m_callbacks.onQueued)
                m_callbacks.onQueued(ahead, max);
        }, m_cancel, remote ? m_connection.uri() : QString());
        if (queued)
            m_result.queuedMs = waited.elapsed();
        if (!slot)
            return fail(cancelled() ? QString() : slot.error().message);
        m_slot.emplace(std::move(slot.value()));
        phase(RunPhase::Preparing);
        m_boot.start();
        m_sandbox = m_options.pool ? m_options.pool->take(m_options.sandbox) : nullptr;
        m_result.preBooted = m_sandbox != nullptr;
        if (!m_sandbox) {
            auto started = startRunSandbox(m_connection, m_options.sandbox, m_options.source,
                                           [this](RunSandboxStep step) { sandboxStep(step); }, m_cancel,
                                           m_callbacks.onStaging);
            if (!started)
                return fail(cancelled() ? QString() : started.error().message);
            m_sandbox = std::move(started.value());
            m_result.restored = m_sandbox->isRestored();
        }
        m_result.domainName = m_sandbox->domainName();
        m_logged.emplace(m_options.log, runLogStart(m_options, m_result.domainName));
        return true;
    }

    /// Until the guest's SSH session is up (at once for a pre-booted sandbox).
    bool boot()
    {
        if (!m_result.preBooted && !m_result.restored) {
            if (auto ready = m_sandbox->waitReady(m_cancel); !ready)
                return fail(cancelled() ? QString() : ready.error().message);
        }
        m_result.bootMs = m_boot.elapsed();
        m_guestReady = true;
        return true;
    }

    /// Allowlist network: the proxy's port in the guest, forwarded to this process's egress
    /// proxy over the run's SSH session (GuestEgress); the script gets the proxy variables.
    bool openEgress()
    {
        if (!m_options.egressProxy)
            return true;
        if (!guest_egress::hasAcceptor())
            return fail(QStringLiteral("the allowlist network needs an egress proxy, and this process serves none"));
        std::weak_ptr<GuestSession> session = m_sandbox->sharedSession();
        auto forward = m_sandbox->session().listenForward(
            guest_egress::kGuestPort, [name = m_result.domainName, session](int fd, quint16 sourcePort) {
                guest_egress::accept({name, fd, sourcePort,
                                      loopbackClientFinder(session, sourcePort, guest_egress::kGuestPort)});
            });
        if (!forward)
            return fail(QStringLiteral("cannot open the egress proxy's port in the guest: %1").arg(forward.error().message));
        m_egress = std::move(forward.value());
        return true;
    }

    /// The input files into the working folder, over the run's SFTP session.
    bool upload()
    {
        if (!m_inputs.isEmpty()) {
            m_sftp = m_sandbox->session().openSftp();
            auto uploaded = *m_sftp ? uploadInputFiles(*m_sftp->value(), m_inputs, kRunFolder)
                                    : Expected<void>(makeError(QStringLiteral("cannot upload the input files: %1")
                                                                   .arg(m_sftp->error().message)));
            if (!uploaded)
                return fail(cancelled() ? QString() : uploaded.error().message);
        }
        if (m_callbacks.onSessionReady)
            m_callbacks.onSessionReady(m_sandbox->sharedSession());
        return true;
    }

    /// The script, under its timeout and output cap; m_status is how it ended.
    bool execute()
    {
        phase(RunPhase::Running);
        m_limits = scriptLimits(m_options, std::chrono::milliseconds(m_total.elapsed()));
        if (m_limits.lifetimeOver) {
            m_result.timedOut = true;
            m_result.limit = RunLimit::Lifetime;
            m_result.limitNote = lifetimeNote(m_options);
            return false;
        }
        Launch script = launch(m_options.language, m_options.code, m_watch.beforeScanCommand());
        ExecRequest request;
        request.command = std::move(script.command);
        if (m_egress)
            request.command.prepend(guest_egress::exportLines());
        request.stdinData = std::move(script.stdinData);
        request.timeout = m_limits.timeout;
        // The session watches the caller's flag and the output cap's.
        request.cancel = &m_cap.passed();
        request.cancel.add(m_cancel);
        request.onStdout = [this](QByteArrayView bytes) {
            keepOutput(m_result.stdoutData, bytes, OutputStream::Stdout, m_callbacks.onStdout);
        };
        request.onStderr = [this](QByteArrayView bytes) {
            keepOutput(m_result.stderrData, bytes, OutputStream::Stderr, m_callbacks.onStderr);
        };
        // The run's SFTP session: opened for the input files before the script, else while
        // the script runs, and used for its out/ folder after it.
        if (!m_sftp)
            m_sftpOpening = std::async(std::launch::async,
                                       [&session = m_sandbox->session()] { return session.openSftp(); });
        QElapsedTimer wall;
        wall.start();
        auto status = m_sandbox->session().exec(request);
        m_result.wallMs = wall.elapsed();
        m_guestAnswered = status.ok(); // else the session may be stuck: fetch nothing
        if (!status) {
            // A script the host had stopped (timeout, lifetime, output cap, cancel) that the
            // guest did not end — a fork bomb can leave it no process to run the kill with —
            // ends with its microVM, destroyed in teardown(): the run ended by that decision,
            // not by a failure.
            const bool stopped = request.cancel.requested(); // cancel or output cap
            const bool expired = m_limits.timeout.count() > 0 && wall.elapsed() >= m_limits.timeout.count();
            if (!expired && !stopped)
                return fail(status.error().message);
            qCWarning(lcRun) << "the guest did not end the stopped script of" << m_result.domainName
                             << "(" << status.error().message << "); destroying its microVM";
            ExecStatus ended;
            ended.signal = 9; // what destroying the microVM amounts to
            ended.cancelled = stopped;
            ended.timedOut = expired && !stopped;
            status = ended;
        }
        m_status = status.value();
        if (m_cap.passed()) {
            m_result.limit = RunLimit::OutputCap;
            m_result.limitNote = m_cap.note();
        }
        return true;
    }

    /// How the script ended, the guest's limits it met, its artifacts; then onResult.
    void collect()
    {
        if (m_result.limit == RunLimit::OutputCap && m_status.signal)
            m_result.limitNote += QLatin1String(" and the script killed");
        m_result.exitStatus = m_status.exitStatus;
        m_result.signal = m_status.signal;
        m_result.timedOut = m_status.timedOut;
        m_result.cancelled = m_status.cancelled && cancelled();
        if (m_status.timedOut) {
            m_result.limit = m_limits.lifetimeBinds ? RunLimit::Lifetime : RunLimit::Timeout;
            if (m_limits.lifetimeBinds)
                m_result.limitNote = lifetimeNote(m_options);
        }
        const bool failed = m_status.signal || m_status.exitStatus.value_or(0) != 0;
        if (failed && !m_status.timedOut && !m_status.cancelled && !m_result.limit)
            lookForGuestLimits(*m_sandbox, m_options, m_result);
        if (m_guestAnswered)
            m_result.fileChanges = scanAfter(sessionExec(m_sandbox->session()), m_watch);
        if (m_guestAnswered && !cancelled()) {
            if (!m_sftp)
                m_sftp = m_sftpOpening.get();
            fetchArtifacts(*m_sftp, m_options, m_result);
        }
        m_result.totalMs = m_total.elapsed();
        if (m_callbacks.onResult)
            m_callbacks.onResult(m_result);
    }

    /// Destroys the microVM and its overlay; the pool boots the next sandbox now, while this
    /// run's result is being read (not after a guest that never became ready).
    void teardown()
    {
        phase(RunPhase::CleaningUp);
        if (m_sftpOpening.valid()) { // its thread waits on the session: end the session first
            m_sandbox->session().close();
            m_sftpOpening.wait();
        }
        m_sftp.reset();
        m_egress.reset(); // before its session goes
        m_sandbox.reset();
        m_slot.reset();
        if (m_options.pool && m_guestReady)
            m_options.pool->refill(m_options.sandbox);
    }

    RunResult finish()
    {
        m_result.error = m_error;
        m_result.cancelled = m_result.cancelled || (cancelled() && m_result.error.isEmpty());
        m_result.totalMs = m_total.elapsed();
        if (!m_logged)
            m_logged.emplace(m_options.log, runLogStart(m_options, m_result.domainName));
        m_logged->finish(runLogEnd(m_result));
        phase(RunPhase::Finished);
        qCInfo(lcRun) << "run" << m_result.domainName << "finished:" << m_result.summary()
                      << "boot" << m_result.bootMs << "ms, script" << m_result.wallMs << "ms";
        return m_result;
    }

    /// Keeps `bytes` of stream `which` in `kept` up to the output cap (past it the rest is
    /// dropped and the script stopped), logs and forwards them.
    void keepOutput(QByteArray& kept, QByteArrayView bytes, OutputStream which,
                    const std::function<void(QByteArrayView)>& forward)
    {
        bytes = m_cap.admit(which, bytes);
        kept.append(bytes);
        m_logged->output(which, bytes);
        if (forward && !bytes.isEmpty())
            forward(bytes);
    }

    bool fail(QString error)
    {
        m_error = std::move(error);
        return false;
    }

    /// The phase of what startRunSandbox() begins; the boot time counts from a restore's or a
    /// boot's start (not from saving the state).
    void sandboxStep(RunSandboxStep step)
    {
        switch (step) {
        case RunSandboxStep::SavingState:
            phase(RunPhase::SavingState);
            return;
        case RunSandboxStep::Restoring:
            phase(RunPhase::Restoring);
            break;
        case RunSandboxStep::Booting:
            phase(RunPhase::Booting);
            break;
        }
        m_boot.restart();
    }

    void phase(RunPhase p)
    {
        if (m_callbacks.onPhase)
            m_callbacks.onPhase(p);
    }

    bool cancelled() const { return m_cancel && *m_cancel; }

    HypervisorConnection& m_connection;
    const RunOptions& m_options;
    const RunCallbacks& m_callbacks;
    const std::atomic_bool* m_cancel;
    RunResult m_result;
    QString m_error;
    std::optional<LoggedAction> m_logged; ///< from the domain's start to the result
    QElapsedTimer m_total;
    QElapsedTimer m_boot;
    QList<InputFile> m_inputs;
    std::optional<SandboxSlot> m_slot; ///< this run's place, from acquire() to the sandbox's end
    std::unique_ptr<Sandbox> m_sandbox;
    std::unique_ptr<ReverseForward> m_egress; ///< allowlist network: the proxy's port in the guest
    bool m_guestReady = false; ///< the guest's SSH session came up (then the pool refills)
    std::optional<Expected<std::unique_ptr<SftpClient>>> m_sftp;
    std::future<Expected<std::unique_ptr<SftpClient>>> m_sftpOpening;
    ScriptLimits m_limits;
    OutputCap m_cap{m_options.outputCapBytes};
    ExecStatus m_status;
    const ChangeWatch m_watch = ChangeWatch::forCommand(QString::fromLatin1(kRunFolder));
    bool m_guestAnswered = false;
};

} // namespace

RunResult runEphemeral(HypervisorConnection& connection, const RunOptions& options,
                       const RunCallbacks& callbacks, const std::atomic_bool* cancel)
{
    return EphemeralRun(connection, options, callbacks, cancel).run();
}

} // namespace sbw
