#pragma once

#include "base/Expected.h"
#include "hypervisor/StoragePool.h"
#include "image/GuestImage.h"
#include "sandbox/SandboxLimits.h"
#include "sandbox/SavedSandboxState.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

typedef struct _virDomain* virDomainPtr;
typedef struct _virConnect* virConnectPtr;

namespace sbw {

class VirtioSerialBridge;
class ClientKey;
class GuestSession;
class HypervisorConnection;
class StoragePool;
class RunLease;
struct CloneIdentity;

/// Size and image of a sandbox.
struct SandboxOptions
{
    QString recipe = QStringLiteral("minimal"); ///< guest image recipe name
    int memoryMiB = 512;                        ///< guest RAM, MiB
    int vcpus = defaultRunVcpus(); ///< 2, or 1 on a single-core host
    int cpuSharePercent = 0; ///< percent of one host core for all vCPUs (DomainSpec); 0 = unlimited
    /// Disk size in GiB: the overlay's virtual size, which the guest's root file system fills;
    /// 0 = the image's size. Below the image's size is refused (diskLimit()).
    int diskGiB = 0;
    /// How long the guest may take from domain start to a logged-in SSH session; 0 picks
    /// 30 s under KVM and 120 s under TCG.
    std::chrono::seconds readyTimeout{0};
};

/// What a sandbox of some options is made from, read before anything is created.
struct SandboxInputs
{
    GuestImage image;                ///< the recipe's image now (manifest)
    DiskLimit disk;                  ///< the overlay's size
    std::shared_ptr<ClientKey> key;  ///< the key the guest accepts (its public half on the command line)
};
/// Errors: libvirt unreachable, image not built, disk below the image's size, key unreadable.
Expected<SandboxInputs> sandboxInputs(HypervisorConnection& connection, const SandboxOptions& options);

/// Stages the image of `options` into the connection's storage pool unless it is there
/// (StoragePool::stage, with its `progress`): on a new host, the upload before the first
/// sandbox. Errors as sandboxInputs(), and a failed upload.
Expected<void> stageSandboxImage(HypervisorConnection& connection, const SandboxOptions& options,
                                 const StagingProgress& progress);

/// One ephemeral microVM: a transient libvirt domain (started with AUTODESTROY, so libvirt
/// destroys it if this process dies) on its own qcow2 overlay volume over the image's
/// read-only base volume. Destroying the Sandbox object destroys the domain and deletes the
/// overlay, whether the run succeeded, failed or was cancelled.
///
/// All calls block (libvirt, storage uploads, SSH): use from worker threads.
class Sandbox
{
public:
    /// Loads the image manifest, stages the image into the storage pool (first use only),
    /// creates the overlay and starts the domain. Errors are readable sentences: image not
    /// built, disk limit below the image's size, daemon unreachable, pool or volume failures,
    /// domain start refused.
    static Expected<std::unique_ptr<Sandbox>> start(HypervisorConnection& connection,
                                                    const SandboxOptions& options);
    /// start() for the template of a saved state (readystate): domain `name`, overlay volume
    /// "<name>.qcow2", which saveState() keeps.
    static Expected<std::unique_ptr<Sandbox>> startTemplate(HypervisorConnection& connection,
                                                            const SandboxOptions& options,
                                                            const QString& name);
    /// A new sandbox from `state` instead of a boot: its own name, UUID and overlay over the
    /// state's, a transient domain with the saved memory, then resumed. On a local connection
    /// the domain is started paused (AUTODESTROY) and the memory loaded into it
    /// (loadIntoNewDomain()); on a remote one a copy of the save image carries the clone's
    /// definition and libvirt restores it (restoreCopyOf(); such a domain is not AUTODESTROY).
    /// waitReady() then also reseeds the guest (freshenGuest) before it returns. `options`
    /// must be those the state was saved with (readystate's key). Errors: as start(), the state
    /// unreadable, QEMU's failed load.
    static Expected<std::unique_ptr<Sandbox>> restore(HypervisorConnection& connection,
                                                      const SandboxOptions& options,
                                                      const SavedSandboxState& state);
    ~Sandbox();

    /// Opens the SSH channel and waits for the guest's sshd to answer and accept the client
    /// key, until the options' readyTimeout; a restored sandbox is reseeded too. Errors: "the
    /// guest did not become ready within N s", cancelled, channel failures, the reseed's.
    Expected<void> waitReady(const std::atomic_bool* cancel);

    /// Closes the SSH session, waits until the guest is idle, and saves the domain's memory and
    /// device state to `path` (virDomainSaveFlags), which stops it; the overlay is kept (its
    /// volume "<domain name>.qcow2" then belongs to the caller). For templates.
    Expected<void> saveState(const QString& path);

    /// Pauses the guest's vCPUs (virDomainSuspend) / lets them run again (virDomainResume),
    /// about 70 ms each under TCG; the SSH session stays open across. Errors: libvirt's message.
    Expected<void> suspend();
    Expected<void> resume();

    /// What start() was given, and the image it used (recipe, hash).
    const SandboxOptions& options() const { return m_options; }
    const GuestImage& image() const { return m_image; }

    GuestSession& session() { return *m_session; }
    /// The same session for holders that may outlive the sandbox (terminal tabs, a file tree).
    /// Destroying the sandbox closes it (GuestSession::close()): their shells and SFTP calls
    /// then report that the session was closed. Null before waitReady() succeeded.
    std::shared_ptr<GuestSession> sharedSession() const { return m_session; }
    QString domainName() const { return m_name; }
    /// The disk the guest got, bytes (the overlay's virtual size).
    qint64 diskBytes() const { return m_diskBytes; }
    /// Whether it was restored from a saved state rather than booted.
    bool isRestored() const { return m_restored; }

private:
    /// Removes what runs of killed workbench processes left: domains whose RunLease ran out
    /// (sweepExpiredRunLeases()) and their overlays, overlays whose domain no longer exists
    /// (libvirt's AUTODESTROY already removed it), copies of save images a killed restore left.
    /// Called by prepare().
    static void removeOrphans(StoragePool& pool, virConnectPtr conn);

    Sandbox() = default;
    /// Image, disk limit, client key and staged image for `options`; the overlay is created by
    /// the caller.
    static Expected<std::unique_ptr<Sandbox>> prepare(HypervisorConnection& connection,
                                                      const SandboxOptions& options, const QString& name);
    static Expected<std::unique_ptr<Sandbox>> startAs(HypervisorConnection& connection,
                                                      const SandboxOptions& options, const QString& name);
    /// Starts the clone's domain paused with `-incoming defer` and feeds it the saved stream
    /// through a file descriptor (loadIncomingMigration(): local daemons only).
    Expected<void> loadIntoNewDomain(const SavedSandboxState& state, const CloneIdentity& clone);
    /// Copies the save image on the daemon's side ("<name>.save", deleted again), writes the
    /// clone's definition into the copy's head (save_image::withDomainXml()) and restores it
    /// paused (virDomainRestoreFlags): libvirt checks the name and UUID against the image's
    /// own, so the image must carry the clone's. Works through any connection. The domain is
    /// not AUTODESTROY: it holds a RunLease while this sandbox lives.
    Expected<void> restoreCopyOf(const SavedSandboxState& state, const CloneIdentity& clone);
    /// Writes `clone`'s definition, with the first term of its lease, into the head (up to
    /// `streamOffset`) of volume `copy`, a copy of a save image.
    Expected<void> writeCloneHead(const QString& copy, qint64 streamOffset, CloneIdentity clone);
    void destroy();

    HypervisorConnection* m_connection = nullptr;
    SandboxOptions m_options;
    GuestImage m_image;
    std::shared_ptr<ClientKey> m_key;
    QString m_name;
    QString m_overlayVolume;
    qint64 m_diskBytes = 0;
    std::chrono::seconds m_readyTimeout{0};
    StagedImage m_staged;
    std::optional<StoragePool> m_pool;
    bool m_restored = false;
    virDomainPtr m_domain = nullptr;
    std::unique_ptr<RunLease> m_lease; ///< restoreCopyOf()'s domain only
    std::unique_ptr<VirtioSerialBridge> m_bridge;
    std::shared_ptr<GuestSession> m_session;
};

} // namespace sbw
