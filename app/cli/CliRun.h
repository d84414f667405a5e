#pragma once

#include "EphemeralRun.h"

#include <QObject>

namespace sbw {

class HypervisorConnection;
class RunController;

/// `sbw run`: runs one script through a RunController, writes the guest's stdout and stderr to
/// this process's stdout and stderr as they arrive, and quits the event loop with
/// RunResult::cliExitCode(). SIGINT/SIGTERM cancel the run (the VM is still destroyed); a
/// third one exits at once and leaves the domain to libvirt's AUTODESTROY.
class CliRun : public QObject
{
    Q_OBJECT

public:
    CliRun(HypervisorConnection* connection, bool verbose, QObject* parent = nullptr);
    void start(const RunOptions& options);

private:
    void onPhase(RunPhase phase);
    void onFinished(const RunResult& result);

    RunController* m_controller;
    bool m_verbose;
};

} // namespace sbw
