#pragma once

#include "base/Expected.h"
#include "sandbox/Sandbox.h"

#include <atomic>
#include <functional>
#include <memory>

namespace sbw {

class HypervisorConnection;

/// Where an ephemeral run's sandbox comes from.
enum class SandboxSource
{
    Auto,    ///< restored from the saved ready state where it can be, else booted
    Boot,    ///< always booted (sbw run --boot, baselines)
    Restore, ///< always restored; a state that cannot be built or loaded fails the run
};

/// What startRunSandbox() is doing, as it begins each step.
enum class RunSandboxStep
{
    SavingState, ///< booting and saving the ready state of these options (once)
    Restoring,   ///< restoring a new domain from the ready state, then reseeding its guest
    Booting,     ///< starting a new domain from the image (its guest is not waited for)
};

/// A sandbox for an ephemeral run. Restored (Sandbox::restore) from the ready state of its
/// options (ReadyStateStore::obtain, which saves one first when there is none); booted
/// (Sandbox::start) when `source` is Boot, or, for Auto, when the state cannot be saved or
/// loaded (logged; a
/// state that did not load or whose guest did not answer is deleted, the next run saves a new
/// one). A restored sandbox is returned ready (waitReady() done, reseeded); a booted one is not.
/// First the image is staged into the host's pool where it is not yet (stageSandboxImage(),
/// reporting to `onStaging`). `onStep` and `onStaging` (may be empty) are called on this thread.
Expected<std::unique_ptr<Sandbox>> startRunSandbox(HypervisorConnection& connection,
                                                   const SandboxOptions& options, SandboxSource source,
                                                   const std::function<void(RunSandboxStep)>& onStep,
                                                   const std::atomic_bool* cancel,
                                                   const StagingProgress& onStaging = {});

} // namespace sbw
