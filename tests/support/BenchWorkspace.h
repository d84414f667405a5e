#pragma once

#include "workspace/WorkspaceRecord.h"

#include <QString>

#include <functional>

namespace sbw {
class HypervisorConnection;
class Workspace;
} // namespace sbw

namespace sbw::test {

/// Why a bench's measurement stopped; thrown by failBench(), caught by measureOnNewWorkspace().
struct BenchFailure
{
    QString what;
};

/// Ends the running measurement with `what` (a sentence for the person running the bench).
[[noreturn]] void failBench(const QString& what);

/// The workspace set-up of a bench that measures on a guest of its own: creates the workspace
/// "PREFIX-PID" (`namePrefix`, this process's id; default settings, left stopped), calls
/// `measure` with it and removes it again, also when `measure` failed. Returns the program's
/// exit status: 0, or 1 after printing "PROGRAM: WHY" on stderr (`program` names the bench)
/// when the workspace could not be created or `measure` threw a BenchFailure, or a line saying
/// so when the workspace could not be removed.
int measureOnNewWorkspace(HypervisorConnection& connection, const QString& namePrefix, const char* program,
                          const std::function<void(Workspace&)>& measure);
/// As above, the workspace created with `settings` (memory, network …) instead of the defaults.
int measureOnNewWorkspace(HypervisorConnection& connection, const QString& namePrefix, const WorkspaceSettings& settings,
                          const char* program, const std::function<void(Workspace&)>& measure);

} // namespace sbw::test
