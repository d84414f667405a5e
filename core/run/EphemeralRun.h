#pragma once

#include "action/ActionRecord.h"
#include "changes/FileChange.h"
#include "hypervisor/HypervisorConnection.h"
#include "readystate/RunSandbox.h"
#include "run/RunArtifacts.h"
#include "sandbox/Sandbox.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

namespace sbw {

class CommandLog;
class SandboxPool;

enum class Language
{
    Python, ///< python3 -u main.py
    Shell   ///< sh main.sh
};

/// "python" / "sh" (the CLI's --lang values); parseLanguage() returns nullopt for others.
QString languageName(Language language);
std::optional<Language> parseLanguage(const QString& name);

/// What to run and in what sandbox.
struct RunOptions
{
    Language language = Language::Python;
    QByteArray code;                       ///< the script, bytes as given
    std::chrono::seconds timeout{60};      ///< script wall-clock limit; 0 = none
    /// Wall-clock limit of the whole run from the runEphemeral() call to the script's end, boot
    /// included (the script gets what is left); 0 = none.
    std::chrono::seconds lifetime{0};
    /// Bytes kept per stream; when stdout or stderr passes it, the rest is dropped and the
    /// script killed. 0 = none. The default keeps a runaway print loop from filling the host's
    /// memory (the result holds every byte kept).
    static constexpr qint64 kDefaultOutputCapBytes = qint64(64) << 20;
    qint64 outputCapBytes = kDefaultOutputCapBytes;
    SandboxOptions sandbox; ///< image, memory (MiB), vCPUs, CPU share, disk (GiB), readiness deadline
    /// The allowlist network: the guest (which has no network interface in any case) reaches
    /// hosts only through this process's egress proxy (GuestEgress: the script gets the proxy
    /// variables; each destination is judged by the proxy's policy, rows under the run's
    /// domain name). The run fails when this process serves no proxy. False: no network.
    bool egressProxy = false;
    /// Host files copied byte for byte into the script's working folder /root/run, under their
    /// own names, before the script starts (see checkInputFiles() for what is refused).
    QStringList inputFiles;
    /// How many files and bytes of the script's out/ folder come back (RunResult::artifacts).
    ArtifactCaps artifactCaps;
    /// Where a run's artifacts go: <artifactsRoot>/<domain name>/out. Empty: runsFolder().
    QString artifactsRoot;
    /// Where the run is logged: one Run row from the domain's start to the result, with the
    /// script as its command and the output kept (CommandLog). Null: not logged.
    std::shared_ptr<CommandLog> log;
    Actor actor; ///< who asked for the run, for the log
    /// Where a pre-booted sandbox of `sandbox`'s options may come from (SandboxPool::take());
    /// after the run the pool boots the next one. Null: every run starts its own.
    SandboxPool* pool = nullptr;
    /// Where a sandbox not from the pool comes from: restored from the saved ready state of its
    /// options where it can be (startRunSandbox), or booted.
    SandboxSource source = SandboxSource::Auto;
    /// How many runs may have a sandbox at once on this host, across the user's processes
    /// (capacity/SandboxSlot); more wait in a queue, first come first served. 0: maxSandboxes()
    /// ($SBW_MAX_SANDBOXES, else what the host holds by its cores and memory).
    int maxSandboxes = 0;
};

/// Steps of a run, in order; reported as they begin.
enum class RunPhase
{
    Connecting, ///< opening the libvirt connection
    Queued,     ///< every place for a sandbox is taken: waiting (RunCallbacks::onQueued)
    Preparing,  ///< loading the image, staging it into the pool, finding the ready state
    SavingState, ///< booting and saving the ready state of these options (first run only)
    Restoring,  ///< restoring a domain from the ready state and reseeding its guest
    Booting,    ///< starting a domain from the image and waiting for the guest's SSH channel
    Running,    ///< script running
    CleaningUp, ///< destroying the domain and deleting the overlay
    Finished
};
QString phaseName(RunPhase phase);

/// A limit that ended a script (for Memory and Disk: that the script hit while it failed).
enum class RunLimit
{
    Timeout,   ///< RunOptions::timeout
    Lifetime,  ///< RunOptions::lifetime
    OutputCap, ///< RunOptions::outputCapBytes
    Memory,    ///< SandboxOptions::memoryMiB: the guest kernel's OOM killer ended a process
    Disk       ///< SandboxOptions::diskGiB: the guest's root file system was full
};
/// "timeout", "lifetime", "output cap", "memory limit", "disk limit" (for logs and panes).
QString limitName(RunLimit limit);

/// Outcome of an ephemeral run.
struct RunResult
{
    QByteArray stdoutData;         ///< every byte the script wrote to stdout
    QByteArray stderrData;         ///< every byte the script wrote to stderr
    std::optional<int> exitStatus; ///< set when the script exited
    std::optional<int> signal;     ///< set when a signal ended it (9 after a timeout)
    bool timedOut = false;         ///< the timeout expired and the script was killed
    bool cancelled = false;        ///< cancelled by the user
    QString error;                 ///< non-empty when the workbench failed (no script result)
    /// Set when a limit ended the script. Timeout, Lifetime and OutputCap are the host's
    /// decisions; Memory and Disk are looked up in the guest when the script failed (non-zero
    /// status or a signal): an OOM kill during the run, or a root file system left full.
    std::optional<RunLimit> limit;
    /// For every limit but Timeout: what happened, e.g. "stdout passed the output cap of 1048576
    /// bytes; the rest was dropped and the script killed" (without "and the script killed" when
    /// it ended before the kill), "the memory limit of 256 MiB was
    /// hit: the guest's kernel killed python3 (pid 231) for lack of memory", "the disk limit of
    /// 4 GiB was hit: the guest's root file system is full".
    QString limitNote;
    /// Files the script wrote under out/ in its working folder, copied to the host after it
    /// ended and before its microVM was destroyed (not after a cancel or a broken session), up
    /// to RunOptions::artifactCaps; in name order.
    QList<RunArtifact> artifacts;
    /// The host folder holding them (<data>/runs/<domain name>/out); empty when none came back.
    QString artifactsFolder;
    /// Set when out/ held more than came back: which cap, what was skipped
    /// (ArtifactCollection::note); empty otherwise.
    QString artifactsNote;
    /// Files the script created, modified and deleted under /root (its working folder
    /// included), or why that is unknown; not tracked when the script did not run.
    FileChanges fileChanges;
    QString domainName;            ///< the libvirt domain used, for logs
    qint64 queuedMs = 0;           ///< waiting for a place (RunPhase::Queued); 0 when one was free
    qint64 bootMs = 0;             ///< restore or boot start → SSH session ready (pre-booted: the resume)
    bool preBooted = false;        ///< the sandbox came from RunOptions::pool
    bool restored = false;         ///< it was restored from a saved ready state, not booted
    qint64 wallMs = 0;             ///< script start → script end
    qint64 totalMs = 0;            ///< run() call → result, including clean-up

    /// Exit code for the CLI: the script's status; 128+N for signal N (137 when the guest's OOM
    /// killer ended it); 124 on timeout or lifetime (as GNU timeout); 137 when the output cap
    /// was passed (the script is killed with SIGKILL; its output is incomplete even if it ended
    /// before the kill); 130 when cancelled (as after Ctrl-C); kWorkbenchError when the
    /// workbench itself failed.
    int cliExitCode() const;
    static constexpr int kWorkbenchError = 125;

    /// One line for a status bar: "exit status 3", "killed by signal 9 (SIGKILL)", "timed out
    /// after 2 s", "cancelled", the limitNote, or the error.
    QString summary() const;
};

/// Progress callbacks; called on the thread that runs runEphemeral().
struct RunCallbacks
{
    std::function<void(RunPhase)> onPhase;
    std::function<void(QByteArrayView)> onStdout;
    std::function<void(QByteArrayView)> onStderr;
    /// The script's outcome, as soon as it is known and before the VM is destroyed (which takes
    /// about a second more); not called when the run fails before the script ran. The result
    /// returned by runEphemeral() is the same plus totalMs.
    std::function<void(const RunResult&)> onResult;
    /// The guest's SSH session, once it is ready and just before the script starts, for
    /// terminals and a file tree on the running sandbox (GuestSession::openShell, openSftp).
    /// The pointer may be kept past the run: at clean-up the session is closed
    /// (GuestSession::close()) and its shells and SFTP calls report that. Not called when the
    /// run fails or is cancelled before the guest is ready.
    std::function<void(std::shared_ptr<GuestSession>)> onSessionReady;
    /// While the run waits for a place (RunPhase::Queued): how many runs wait ahead of it, and
    /// the maximum running at once; called when the number changes.
    std::function<void(int ahead, int maxSandboxes)> onQueued;
    /// While the image is uploaded into the host's storage pool (RunPhase::Preparing; on a new
    /// host, once): bytes sent of all, at the start and as each tenth is passed (StoragePool::stage).
    std::function<void(qint64 sentBytes, qint64 totalBytes)> onStaging;
};

/// "staging the image into the host's storage pool: 120 of 349 MiB" (RunCallbacks::onStaging).
QString stagingText(qint64 sentBytes, qint64 totalBytes);

/// Runs `options.code` in a fresh microVM and destroys it: checks and uploads the input files,
/// starts a Sandbox, writes the script to /root/run/main.py (or main.sh) in the guest, runs it
/// there as root with the working folder /root/run (which holds the input files and an empty
/// out/ folder), streams its output through `callbacks`, copies the files under out/ back to
/// the host (RunResult::artifacts), and returns the result. Blocks
/// (seconds under TCG): call on a worker thread. Never throws; failures are in
/// RunResult::error. Setting `*cancel` ends the run early; the VM is destroyed either way.
RunResult runEphemeral(HypervisorConnection& connection, const RunOptions& options,
                       const RunCallbacks& callbacks, const std::atomic_bool* cancel);

} // namespace sbw

Q_DECLARE_METATYPE(sbw::RunResult)
Q_DECLARE_METATYPE(sbw::RunPhase)
