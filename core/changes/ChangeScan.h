#pragma once

#include "base/Expected.h"
#include "changes/ChangeWatch.h"
#include "changes/FileChange.h"
#include "guest/GuestSession.h"

#include <functional>

namespace sbw {

/// Runs one exec in the guest and blocks until it ends: GuestSession::exec, or Workspace::exec
/// with its ready deadline bound.
using GuestExec = std::function<Expected<ExecStatus>(const ExecRequest&)>;

/// The "before" half on its own exec, for callers that cannot put
/// ChangeWatch::beforeScanCommand() in front of their command (a preview that scans, shows, then
/// runs). Errors: the exec failed or the scan did not run.
Expected<void> scanBefore(const GuestExec& exec, const ChangeWatch& watch);
/// The "after" half: the files created, modified and deleted in the watch's folders since its
/// scan before, with diffs. Never fails: when the exec or the scan fails, the changes are
/// unknown and say why. Blocks: one exec, a second one when small files changed (their
/// contents), and `diff` on the host per text file.
FileChanges scanAfter(const GuestExec& exec, const ChangeWatch& watch);

/// GuestSession::exec as a GuestExec.
GuestExec sessionExec(GuestSession& session);

} // namespace sbw
