#pragma once

#include "Expected.h"
#include "GuestImage.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <memory>

typedef struct _virDomain* virDomainPtr;
typedef struct _virConnect* virConnectPtr;

namespace sbw {

class ChannelBridge;
class ClientKey;
class GuestSession;
class HypervisorConnection;
class StoragePool;

/// Size and image of a sandbox.
struct SandboxOptions
{
    QString recipe = QStringLiteral("minimal"); ///< guest image recipe name
    int memoryMiB = 512;                        ///< guest RAM, MiB
    int vcpus = 1;
    int cpuSharePercent = 0; ///< percent of one host core for all vCPUs (DomainSpec); 0 = unlimited
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
    /// built, daemon unreachable, pool or volume failures, domain start refused.
    static Expected<std::unique_ptr<Sandbox>> start(HypervisorConnection& connection,
                                                    const SandboxOptions& options);
    ~Sandbox();

    /// Opens the SSH channel and waits for the guest's sshd to answer and accept the client
    /// key, until the options' readyTimeout. Errors: "the guest did not become ready within
    /// N s", cancelled, channel failures.
    Expected<void> waitReady(const std::atomic_bool* cancel);

    GuestSession& session() { return *m_session; }
    QString domainName() const { return m_name; }

private:
    /// Removes overlays of ephemeral runs whose domain no longer exists (left behind when a
    /// workbench process was killed; libvirt's AUTODESTROY already removed the domain). Called
    /// by start().
    static void removeOrphanOverlays(StoragePool& pool, virConnectPtr conn);

    Sandbox() = default;
    void destroy();

    HypervisorConnection* m_connection = nullptr;
    GuestImage m_image;
    std::shared_ptr<ClientKey> m_key;
    QString m_name;
    QString m_overlayVolume;
    std::chrono::seconds m_readyTimeout{0};
    virDomainPtr m_domain = nullptr;
    std::unique_ptr<ChannelBridge> m_bridge;
    std::unique_ptr<GuestSession> m_session;
};

} // namespace sbw
