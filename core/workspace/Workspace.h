#pragma once

#include "base/Expected.h"
#include "guest/GuestSession.h"
#include "workspace/WorkspaceCheckpoint.h"
#include "workspace/WorkspaceDomains.h"
#include "workspace/WorkspaceRecord.h"
#include "workspace/WorkspaceState.h"
#include "workspace/WorkspaceStop.h"

#include <QStringList>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace sbw {

class VirtioSerialBridge;
class ClientKey;
class HypervisorConnection;

/// How Workspace::fork() makes the fork.
struct ForkOptions
{
    QString checkpoint; ///< fork from this checkpoint; empty: from the state now
    bool memory = true; ///< a running source's memory too; false: its disk alone
    /// The fork has no network whatever its source's (settings.network none): a NIC it keeps
    /// so that the source's memory loads has its link down, and it is served no egress proxy.
    /// For previews, which run an action nobody has approved yet.
    bool offline = false;
};

/// A persistent agent workspace: the libvirt domain "sbw-ws-<name>" (defined, not transient)
/// with the workbench's metadata, its own qcow2 overlay volume "sbw-ws-<name>.qcow2" in the
/// storage pool over the image's read-only base (kept across stop and start), and a JSON record
/// in `<dataDir>/workspaces/`. Checkpoints are libvirt internal snapshots (disk and memory)
/// inside the overlay.
///
/// The domain is looked up by name on every call, so a Workspace stays usable across a
/// reconnect of its HypervisorConnection. States are read from libvirt (state()); each call
/// checks the matching predicate (canPause() …) first and refuses with a sentence otherwise.
/// The SSH session for exec() is opened lazily, on the first of the guest's SSH ports that no
/// other program holds, and dropped whenever the guest's memory is saved or replaced (stop,
/// hibernate, checkpoint, revert).
///
/// Every call blocks (libvirt, SSH): use from worker threads. Lifecycle calls are serialised;
/// exec() runs beside them (a pause freezes a running command, a hibernate breaks it).
class Workspace
{
public:
    /// Stages the image (first use), creates the overlay (virtual size settings.diskGiB; the
    /// guest grows its root file system to it at boot), defines the domain (with the CPU share
    /// as cputune, so it holds at every start) and writes the record. The workspace is left
    /// stopped. Errors: invalid name, name taken, CPU share out of range, disk below the image's
    /// size, image not built, libvirt failures (nothing is left behind then).
    static Expected<std::unique_ptr<Workspace>> create(HypervisorConnection& connection,
                                                       const QString& name,
                                                       const WorkspaceSettings& settings);

    /// The existing workspace `name`, from its domain's metadata. Errors: no such workspace, a
    /// domain of that name that is not ours.
    static Expected<std::unique_ptr<Workspace>> open(HypervisorConnection& connection,
                                                     const QString& name);

    /// A workspace known from a listing (listWorkspaceRecords()).
    Workspace(HypervisorConnection& connection, WorkspaceRecord record);
    ~Workspace();

    const WorkspaceRecord& record() const { return m_record; }
    QString name() const { return m_record.name; }
    /// The connection of the host the workspace is on.
    HypervisorConnection& connection() const { return m_connection; }

    /// readWorkspaceState() of the domain now; Unknown when libvirt cannot be asked.
    WorkspaceState state();

    /// Boots a stopped or crashed workspace (virDomainCreate).
    Expected<void> start();
    /// Shuts the guest down cleanly within `grace` (a paused guest is resumed first): through
    /// its agent when connected (virDomainShutdownFlags, GUEST_AGENT), otherwise over its SSH
    /// session (`sync`, then the guest's `poweroff`), retrying both until one takes the request
    /// (a guest still booting has neither yet); the guest's poweroff syncs and remounts / read-
    /// only. Only when the domain still runs at the end of `grace` is it destroyed
    /// (virDomainDestroy) and the outcome `forced`. The disk is kept. Errors: not running,
    /// libvirt failures (then nothing was forced).
    Expected<StopOutcome> stop(std::chrono::seconds grace = std::chrono::seconds(30));
    /// Stops the vCPUs; memory stays in RAM (virDomainSuspend).
    Expected<void> pause();
    /// Continues the vCPUs (virDomainResume) and sets the guest clock to the host's.
    Expected<void> resume();
    /// Saves memory to disk and stops the domain (virDomainManagedSave); survives restarts of
    /// the workbench and of libvirtd.
    Expected<void> hibernate();
    /// Restores a hibernated workspace (virDomainCreate loads the managed save) and sets the
    /// guest clock to the host's.
    Expected<void> wake();

    /// Takes checkpoint `name` (1–64 of A–Z a–z 0–9 . _ -) with `note`: disk and memory,
    /// also of a paused workspace, which stays paused.
    Expected<CheckpointInfo> checkpoint(const QString& name, const QString& note);
    /// All checkpoints as a timeline (orderTimeline(): by the parent chain, branches whole),
    /// the current one marked.
    Expected<QList<CheckpointInfo>> checkpoints();
    /// What revert(name) would discard, for the question before it.
    Expected<RevertImpact> revertImpact(const QString& name);
    /// Returns disk and memory to checkpoint `name` (running or paused, as it was taken), then
    /// sets the guest clock when it runs. Other checkpoints are kept.
    Expected<void> revert(const QString& name);
    /// Deletes checkpoint `name` only; the others and the base image keep their data.
    Expected<void> deleteCheckpoint(const QString& name);

    /// Forks the workspace into a new workspace `name` (WorkspaceFork.cpp):
    /// its own overlay, a byte copy of this one's (so it keeps the base image and every
    /// checkpoint, which the fork lists too), its own domain, record (environment included) and
    /// origin. Without `checkpoint`: a running or paused workspace is forked with its memory
    /// (a checkpoint taken for the fork, deleted afterwards), so the fork's processes run on
    /// in the state it is in; a stopped or hibernated one, or any with options.memory false, by
    /// its disk alone (the fork is left stopped). With options.checkpoint: the fork is reverted
    /// to it, in its state then. The source
    /// keeps its data and state; while its overlay is copied a running source is stopped with
    /// its memory saved (managed save) and restored at once: its commands pause for that time
    /// and its SSH session reconnects. Errors: invalid or taken name, no such checkpoint, the
    /// source starting up, libvirt failures (nothing of the fork is left behind then).
    Expected<std::unique_ptr<Workspace>> fork(const QString& name, const ForkOptions& options = {});

    /// Makes this workspace what `fork` (a fork of it, Workspace::fork) is now: its disk, its
    /// memory when it runs, its checkpoints; this workspace keeps its name, definition, record
    /// and policy. For "approve as previewed" (ActionPreview). Whatever this workspace did since
    /// the fork is discarded; refused when it took a checkpoint the fork lacks (that
    /// checkpoint's data would be lost). The fork is left stopped (remove it afterwards). The
    /// fork's disk is first copied beside this one's, so a failure midway loses neither.
    Expected<void> adoptFork(Workspace& fork);

    /// Destroys the domain if it runs (no clean shutdown: its disk is deleted with it, so there
    /// is nothing left to flush) and deletes everything of the workspace: the definition
    /// with its managed save and checkpoint metadata, the overlay (with the checkpoints' data)
    /// and the record. The object must not be used afterwards.
    Expected<void> remove();

    /// The variables injected into every command, read from the record on disk now (so a change
    /// made by another workbench process counts). Errors: the record cannot be read.
    Expected<WorkspaceEnvironment> environment() const;
    /// Replaces the variables (written to the record at once). Errors: record not writable.
    Expected<void> setEnvironment(const WorkspaceEnvironment& environment);
    /// Turns the checkpoint before each approved agent action on or off (written to the record
    /// at once; see WorkspaceRecord::checkpointBeforeApproved). Errors: record not writable.
    Expected<void> setCheckpointBeforeApproved(bool on);

    /// Runs `request` in the guest (GuestSession::exec) with environment() exported first,
    /// opening the SSH session when there is none; waits until `readyDeadline` for a starting
    /// guest. Errors: state does not allow exec, the record cannot be read, guest not ready in
    /// time, every SSH port held by other programs, session broken (the next call reconnects).
    Expected<ExecStatus> exec(const ExecRequest& request,
                              std::chrono::steady_clock::time_point readyDeadline);

    /// Closes the SSH session, if any, which frees its SSH port for another program; the next
    /// exec() reconnects.
    void closeSession();
    /// The workspace's SSH session for terminals and file transfers (GuestSession::openShell,
    /// openSftp), connected first when there is none; waits until `readyDeadline` for a
    /// starting guest. The pointer keeps the session and its channel bridge alive; after stop,
    /// hibernate or revert, or when its connection broke, it is dead (its channels report
    /// errors) and the next call connects anew. Errors: as exec().
    Expected<std::shared_ptr<GuestSession>> session(std::chrono::steady_clock::time_point readyDeadline);

    /// As session(), but a workspace without a session keeps none: the one connected for the
    /// caller closes (and frees its SSH port) when the last pointer goes. For the workbench's own
    /// short reads (the guest's uptime), which should not hold a port of every workspace.
    Expected<std::shared_ptr<GuestSession>>
    borrowSession(std::chrono::steady_clock::time_point readyDeadline);

    /// Shell command line that runs `argv` in `workdir`: "cd 'DIR' && exec 'ARG0' 'ARG1' …".
    static QByteArray commandLine(const QStringList& argv,
                                  const QString& workdir = QStringLiteral("/root"));

private:
    Expected<void> requireState(bool (*allowed)(WorkspaceState), const char* action);
    /// requireState(), then the domain. The caller holds m_mutex.
    Expected<DomainPtr> domainIf(bool (*allowed)(WorkspaceState), const char* action);
    /// Starts the domain (restoring a managed save). `verb` names the action in errors
    /// ("start", "wake").
    Expected<void> boot(virDomainPtr domain, const char* verb);
    Expected<void> syncGuestClock();
    /// m_record with the JSON record's own fields (environment, checkpointBeforeApproved) as
    /// they are on disk now.
    Expected<WorkspaceRecord> recordOnDisk() const;
    /// fork() helpers (WorkspaceFork.cpp). The caller holds m_mutex.
    Expected<void> copyOverlayTo(virDomainPtr domain, const QString& forkName);
    Expected<DomainPtr> defineFork(virDomainPtr source, const QString& name, const ForkOptions& options);
    /// Asks the guest to power off by the first path that answers before `deadline` (agent,
    /// SSH), filling `outcome`'s request. True when asked or already off.
    bool askPowerOff(virDomainPtr domain, std::chrono::steady_clock::time_point deadline,
                     StopOutcome& outcome);
    Expected<void> askPowerOffOverSsh(std::chrono::steady_clock::time_point deadline,
                                      StopOutcome& outcome);
    static bool isShutOff(virDomainPtr domain);
    /// Polls every 100 ms until the domain is shut off (true) or `deadline` (false).
    static bool waitShutOff(virDomainPtr domain, std::chrono::steady_clock::time_point deadline);
    Expected<void> ensureSession(std::chrono::steady_clock::time_point deadline, CancelFlags cancel);
    /// session() without asking for the egress port. The caller holds m_mutex.
    Expected<std::shared_ptr<GuestSession>> openSession(std::chrono::steady_clock::time_point readyDeadline);
    /// Allowlist network: asks the session's sshd for the egress proxy's port (GuestEgress)
    /// when this process serves a proxy and the session does not hold it yet. The caller holds
    /// m_mutex and has a session.
    void listenForEgress();
    void dropSession();

    /// An SSH session and the channel bridge under it; shared so that an exec() in flight
    /// keeps it alive while another thread drops it.
    struct Link;

    HypervisorConnection& m_connection;
    WorkspaceRecord m_record;
    std::recursive_mutex m_mutex; ///< lifecycle calls; exec() holds it only to get the link
    std::shared_ptr<ClientKey> m_key;
    std::shared_ptr<Link> m_link;
};

} // namespace sbw
