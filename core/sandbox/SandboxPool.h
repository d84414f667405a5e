#pragma once

#include "sandbox/Sandbox.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace sbw {

/// A booted, paused sandbox kept ready so that the next ephemeral run skips the boot (resume
/// and a first exec instead of a domain start and a guest boot; see ARCHITECTURE.md,
/// "Pre-booted sandbox").
///
/// The pool holds at most one sandbox, started with the options of the last run that asked for
/// one. It fills only when refill() is called (after a run), so a workbench that runs nothing
/// boots nothing. The pooled sandbox is a run's sandbox like any other: a transient domain
/// that libvirt destroys if this process dies, with its own overlay, serving exactly one run
/// and destroyed after it. Its guest clock stays right across the pause (measured: `date` in
/// the guest matched the host's within an exec's latency after a 30 s pause under TCG).
///
/// Thread-safe: take() and refill() may be called from any thread; the boot runs on the pool's
/// own thread.
class SandboxPool
{
public:
    /// How the pool makes a sandbox of some options (a boot, or a restore from the saved ready
    /// state: readystate/RunSandbox); `cancel` becomes true when the pool is destroyed. The
    /// sandbox may come ready (its session open) or not; the pool waits for it then.
    using Maker = std::function<Expected<std::unique_ptr<Sandbox>>(const SandboxOptions& options,
                                                                  const std::atomic_bool* cancel)>;

    /// Makes its sandboxes with `make`; by default it boots them (Sandbox::start).
    explicit SandboxPool(HypervisorConnection& connection, Maker make = {});
    /// Stops a boot in progress and destroys the pooled sandbox (blocks until both are done,
    /// about a second under TCG).
    ~SandboxPool();
    SandboxPool(const SandboxPool&) = delete;
    SandboxPool& operator=(const SandboxPool&) = delete;

    /// The pooled sandbox, resumed and ready for a script, when it was started with `options`
    /// (image recipe, memory, vCPUs, CPU share and disk all equal) from the image the recipe
    /// names now (same hash: a rebuilt image is not served from an older boot); else null, and
    /// the caller starts a sandbox of its own. Never waits for a boot in progress. A sandbox
    /// that cannot be resumed is destroyed, logged, and null returned.
    std::unique_ptr<Sandbox> take(const SandboxOptions& options);

    /// Starts booting a sandbox of `options` on the pool's thread, unless one of those options
    /// is pooled or a boot is in progress. A pooled sandbox of other options is destroyed
    /// first (blocks for that, about 0.2 s). A
    /// boot that fails is logged (category sbw.run) and leaves the pool empty until the next
    /// refill().
    void refill(const SandboxOptions& options);

    /// Whether a sandbox is pooled and ready to be taken.
    bool hasReady() const;

    /// On (the default): as above. Off: the pooled sandbox is destroyed (a boot in progress
    /// is destroyed when it ends), take() returns null and refill() does nothing.
    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }

private:
    void joinBoot();

    HypervisorConnection& m_connection;
    Maker m_make;
    mutable std::mutex m_mutex;
    std::unique_ptr<Sandbox> m_ready;   ///< paused, session open; guarded by m_mutex
    std::thread m_boot;                 ///< the boot in progress, if joinable
    std::atomic_bool m_booting{false};
    std::atomic_bool m_stop{false};     ///< the destructor's cancel for waitReady()
    std::atomic_bool m_enabled{true};
};

/// Whether two option sets give the same sandbox (everything but the readiness deadline).
bool sameSandbox(const SandboxOptions& a, const SandboxOptions& b);

} // namespace sbw
