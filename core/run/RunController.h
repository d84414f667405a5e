#pragma once

#include "base/OutputBatcher.h"
#include "run/EphemeralRun.h"
#include "sandbox/SandboxPool.h"

#include <QObject>

#include <atomic>
#include <memory>
#include <thread>

namespace sbw {

/// Runs one ephemeral run at a time on a worker thread and reports it through signals on the
/// controller's own thread (the GUI thread, or the CLI's main thread). Output is batched: at
/// most one outputReceived() burst per 50 ms, consecutive bytes of one stream merged, order
/// between streams kept, so a script printing megabytes cannot flood the event loop.
///
/// Destroying the controller cancels a run in progress and waits until its VM is destroyed.
class RunController : public QObject
{
    Q_OBJECT

public:
    explicit RunController(HypervisorConnection* connection, QObject* parent = nullptr);
    ~RunController() override;

    bool isRunning() const { return m_running; }

    /// Runs started from now on go to the host of `connection` (not owned; it must outlive the
    /// controller) and take a pre-booted sandbox from `pool` (that host's) when it holds one of
    /// their options, and let it boot the next (RunOptions::pool). Null pool: each run boots
    /// its own. A run in progress stays where it is.
    void setHost(HypervisorConnection* connection, std::shared_ptr<SandboxPool> pool);

public Q_SLOTS:
    /// Starts a run. Ignored (returns false) while one is running.
    bool start(const sbw::RunOptions& options);
    /// Asks the running run to stop; finished() follows with cancelled set.
    void cancel();

Q_SIGNALS:
    void phaseChanged(sbw::RunPhase phase);
    /// Waiting for a place (RunCallbacks::onQueued): runs ahead, the maximum at once.
    void queued(int ahead, int maxSandboxes);
    /// Uploading the image into the host's storage pool (RunCallbacks::onStaging).
    void staging(qint64 sentBytes, qint64 totalBytes);
    void outputReceived(sbw::OutputStream stream, const QByteArray& bytes);
    /// The script ended (RunCallbacks::onResult): its output is complete, the VM is being
    /// destroyed. finished() follows.
    void resultReady(const sbw::RunResult& result);
    /// The run's guest is ready and its script about to start (RunCallbacks::onSessionReady):
    /// terminals and a file tree may use `session` until the run's clean-up closes it.
    void sessionReady(std::shared_ptr<sbw::GuestSession> session);
    /// Everything is over, the VM and its overlay are gone.
    void finished(const sbw::RunResult& result);

private:
    void joinWorker();

    HypervisorConnection* m_connection;
    std::shared_ptr<SandboxPool> m_pool; ///< each run holds the one it started with
    std::atomic_bool m_cancel{false};
    bool m_running = false;
    std::thread m_worker;
    OutputBatcher m_output;
};

} // namespace sbw
