#pragma once

#include "base/Expected.h"
#include "image/GuestImage.h"
#include "sandbox/SandboxLimits.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <memory>

typedef struct _virDomain* virDomainPtr;
typedef struct _virConnect* virConnectPtr;

namespace sbw {

class VirtioSerialBridge;
class ClientKey;
class GuestSession;
class HypervisorConnection;
class StoragePool;

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
    ~Sandbox();

    /// Opens the SSH channel and waits for the guest's sshd to answer and accept the client
    /// key, until the options' readyTimeout. Errors: "the guest did not become ready within
    /// N s", cancelled, channel failures.
    Expected<void> waitReady(const std::atomic_bool* cancel);

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

private:
    /// Removes overlays of ephemeral runs whose domain no longer exists (left behind when a
    /// workbench process was killed; libvirt's AUTODESTROY already removed the domain). Called
    /// by start().
    static void removeOrphanOverlays(StoragePool& pool, virConnectPtr conn);

    Sandbox() = default;
    void destroy();

    HypervisorConnection* m_connection = nullptr;
    SandboxOptions m_options;
    GuestImage m_image;
    std::shared_ptr<ClientKey> m_key;
    QString m_name;
    QString m_overlayVolume;
    qint64 m_diskBytes = 0;
    std::chrono::seconds m_readyTimeout{0};
    virDomainPtr m_domain = nullptr;
    std::unique_ptr<VirtioSerialBridge> m_bridge;
    std::shared_ptr<GuestSession> m_session;
};

} // namespace sbw
