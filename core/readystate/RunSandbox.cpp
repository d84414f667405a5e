#include "readystate/RunSandbox.h"

#include "base/Logging.h"
#include "hypervisor/HypervisorConnection.h"
#include "readystate/ReadyStateStore.h"

namespace sbw {

Expected<std::unique_ptr<Sandbox>> startRunSandbox(HypervisorConnection& connection,
                                                   const SandboxOptions& options, SandboxSource source,
                                                   const std::function<void(RunSandboxStep)>& onStep,
                                                   const std::atomic_bool* cancel,
                                                   const StagingProgress& onStaging)
{
    if (auto staged = stageSandboxImage(connection, options, onStaging); !staged)
        return staged.error();
    const auto step = [&onStep](RunSandboxStep s) {
        if (onStep)
            onStep(s);
    };
    const auto boot = [&] {
        step(RunSandboxStep::Booting);
        return Sandbox::start(connection, options);
    };
    if (source == SandboxSource::Boot)
        return boot();
    const auto cancelled = [cancel] { return cancel && *cancel; };
    ReadyStateStore store(connection);
    auto state = store.obtain(options, [&] { step(RunSandboxStep::SavingState); }, cancel);
    if (!state) {
        if (source == SandboxSource::Restore || cancelled())
            return state.error();
        qCWarning(lcRun) << "no ready state, booting instead:" << state.error().message;
        return boot();
    }
    step(RunSandboxStep::Restoring);
    auto restored = Sandbox::restore(connection, options, state.value());
    if (restored) {
        // Here rather than in the run, so that a state whose guest does not answer or cannot be
        // reseeded is replaced like one that did not load.
        if (auto ready = restored.value()->waitReady(cancel); !ready)
            restored = ready.error();
    }
    if (restored || cancelled()) // a cancel says nothing about the state: it is kept
        return restored;
    qCWarning(lcRun) << "the ready state" << state->name << "did not load:" << restored.error().message;
    store.discard(state->name);
    if (source == SandboxSource::Restore)
        return restored;
    return boot();
}

} // namespace sbw
