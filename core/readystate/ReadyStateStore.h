#pragma once

#include "base/Expected.h"
#include "sandbox/Sandbox.h"
#include "sandbox/SavedSandboxState.h"

#include <atomic>
#include <functional>

namespace sbw {

class HypervisorConnection;

/// Saved ready states in the storage pool, one per image build and sandbox options
/// (readyStateName()): the volumes "<name>.qcow2" (the template's overlay, never written
/// again), "<name>.save" (its save image) and "<name>.ready", a marker written last, so a
/// state whose build was interrupted is never used.
///
/// A state is built by booting a template sandbox of those options, waiting until SSH answers
/// and Python has started once, then saving it (Sandbox::saveState). Processes of one user
/// build one state once: the second waits for the first (a lock file in the state folder).
///
/// Every call blocks (libvirt, a boot): use from worker threads.
class ReadyStateStore
{
public:
    explicit ReadyStateStore(HypervisorConnection& connection) : m_connection(connection) {}

    /// Which state `options` need on this connection now.
    struct Wanted
    {
        QString name;         ///< readyStateName()
        QString recipeHash;
        QString buildId;
        qint64 diskBytes = 0; ///< the disk the sandboxes get
    };
    /// Errors: image not built, disk limit below the image's size, libvirt unreachable.
    Expected<Wanted> wanted(const SandboxOptions& options);

    /// The state for `options`, built first when there is none (`onBuilding` is called then,
    /// before the boot). Then prune() runs.
    /// Errors: as nameFor(), the template's boot or save failed, cancelled.
    Expected<SavedSandboxState> obtain(const SandboxOptions& options, const std::function<void()>& onBuilding,
                                       const std::atomic_bool* cancel);

    /// The complete state `wanted`. Errors: none, or unreadable.
    Expected<SavedSandboxState> find(const Wanted& wanted);

    /// Deletes state `name`'s volumes (a state that did not load).
    void discard(const QString& name);

private:
    Expected<SavedSandboxState> build(const Wanted& wanted, const SandboxOptions& options,
                                      const std::atomic_bool* cancel);
    /// Deletes the states of the recipe's other builds, and the oldest saved ones beyond four
    /// (each option set has its own; disk is bounded), keeping `wanted`'s.
    void prune(const Wanted& wanted);

    HypervisorConnection& m_connection;
};

} // namespace sbw
