#pragma once

#include "base/TerminationSignals.h"
#include "run/EphemeralRun.h"

#include <QObject>

namespace sbw {

class HypervisorConnection;
class RunController;

/// `sbw run`: runs one script through a RunController, writes the guest's stdout and stderr to
/// this process's stdout and stderr as they arrive, and quits the event loop with
/// RunResult::cliExitCode(). SIGINT, SIGTERM and SIGHUP cancel the run (the VM is still destroyed); a
/// third one exits at once and leaves the domain to libvirt's AUTODESTROY. A note on skipped
/// artifacts (RunResult::artifactsNote) goes to stderr; with an output folder, the artifacts
/// are copied there under their names below out/, one stderr line each
/// ("sbw: artifact NAME, N bytes: PATH"), and a failed copy exits 125.
class CliRun : public QObject
{
    Q_OBJECT

public:
    CliRun(HypervisorConnection* connection, bool verbose, QObject* parent = nullptr);
    void start(const RunOptions& options);
    /// Copy the run's artifacts into `folder` (existing) when it ends; empty: leave them in the
    /// data folder only.
    void setOutputFolder(const QString& folder) { m_outputFolder = folder; }

private:
    void onPhase(RunPhase phase);
    void onFinished(const RunResult& result);
    /// Copies the artifacts to m_outputFolder; false (after saying so) when one failed.
    bool copyArtifacts(const RunResult& result);

    RunController* m_controller;
    bool m_verbose;
    QString m_outputFolder;
    TerminationSignals m_termination{3};
};

} // namespace sbw
