#pragma once

#include "sandbox/Sandbox.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace sbw {

/// Booted, paused sandboxes kept ready so that the next ephemeral runs skip the boot (resume
/// and a first exec instead of a domain start and a guest boot; see ARCHITECTURE.md,
/// "Pre-booted sandbox").
///
/// The pool holds up to size() sandboxes (1 by default; 0 is off), all made with the options
/// of the last run that asked for them, one after another on the pool's thread. It fills only
/// once refill() was called (after a run), so a workbench that runs nothing boots nothing. A
/// pooled sandbox is a run's sandbox like any other: a transient domain
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

    /// A pooled sandbox, resumed and ready for a script, when it was started with `options`
    /// (image recipe, memory, vCPUs, CPU share and disk all equal) from the image the recipe
    /// names now (same hash: a rebuilt image is not served from an older boot); else null, and
    /// the caller starts a sandbox of its own. Never waits for a boot in progress. A sandbox
    /// that cannot be resumed is destroyed, logged, and null returned.
    std::unique_ptr<Sandbox> take(const SandboxOptions& options);

    /// Makes sandboxes of `options` on the pool's thread until size() are pooled, unless it
    /// is at it already. Pooled sandboxes of other options are destroyed first (blocks for
    /// that, about 0.2 s each). A sandbox that cannot be made is logged (category sbw.run) and
    /// the pool stops filling until the next refill().
    void refill(const SandboxOptions& options);

    /// The connection was lost: the pooled sandboxes went with it (their domains are
    /// AUTODESTROY), so they are dropped (on a thread-pool thread: their clean-up calls fail
    /// against the dead connection, and their overlays are left to the next sweep of stale run
    /// volumes). The pool fills again at the next refill().
    void dropLost();

    /// Whether a sandbox is pooled and ready to be taken.
    bool hasReady() const;
    /// How many are.
    int readyCount() const;

    /// How many sandboxes to keep ready, 0 to kMaxSize (clamped). 0: the pooled sandboxes are
    /// destroyed (one being made is destroyed when it is done), take() returns null and
    /// refill() does nothing. Fewer: the surplus is destroyed. More: the pool fills up at once
    /// when it has been refilled before.
    void setSize(int size);
    int size() const { return m_size; }
    static constexpr int kMaxSize = 8;

private:
    void joinBoot();
    /// Starts the pool thread unless it runs or nothing is missing; with m_mutex held.
    void startFilling();
    /// The pool thread: makes sandboxes of m_wanted until m_size are ready.
    void fill();
    /// A sandbox of `options`, ready for a script and paused; null (logged) when it failed.
    std::unique_ptr<Sandbox> makeReady(const SandboxOptions& options);

    HypervisorConnection& m_connection;
    Maker m_make;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<Sandbox>> m_ready; ///< paused, session open; guarded by m_mutex
    std::optional<SandboxOptions> m_wanted;        ///< of the last refill(); guarded by m_mutex
    std::thread m_boot;                 ///< the pool thread, if joinable
    std::atomic_bool m_booting{false};  ///< the pool thread runs
    std::atomic_bool m_stop{false};     ///< the destructor's cancel for waitReady()
    std::atomic_int m_size{1};
};

/// Whether two option sets give the same sandbox (everything but the readiness deadline).
bool sameSandbox(const SandboxOptions& a, const SandboxOptions& b);

} // namespace sbw
