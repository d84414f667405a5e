#pragma once

#include "run/EphemeralRun.h"

#include <QString>

namespace sbw {

/// Words the GUI uses for a run's progress and outcome.

/// "Connecting…", "Preparing image…", "Booting microVM…", "Running…", "Cleaning up…";
/// empty for RunPhase::Finished (the result replaces it).
QString phaseText(RunPhase phase);
/// "Waiting for a free microVM: 2 runs ahead (at most 2 at once)…".
QString queuedText(int ahead, int maxSandboxes);

/// "850 ms" below a second, "6.42 s" below ten seconds, "73.1 s" above.
QString durationText(qint64 ms);

/// One line for the status line: "Finished: exit status 0 · boot 6.42 s · script 85 ms",
/// "Killed by signal 9 (SIGKILL) · …", "Timed out after 60 s: script killed · …", the limit
/// that ended the script ("The memory limit of 256 MiB was hit: the guest's kernel killed
/// python3 (pid 231) for lack of memory · killed by signal 9 (SIGKILL) · …", "The disk limit
/// of 4 GiB was hit: … · exit status 1 · …", the output cap's and lifetime's notes),
/// "Cancelled", or "Failed: <the workbench's error>". Hidden characters are shown escaped.
QString resultText(const RunResult& result);

/// Severity of a result, for the icon next to the status line.
enum class ResultKind
{
    Success, ///< exit status 0
    Warning, ///< non-zero exit, signal, timeout, a limit hit, cancelled
    Failure  ///< the workbench failed (RunResult::error)
};
ResultKind resultKind(const RunResult& result);

} // namespace sbw
