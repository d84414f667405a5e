#pragma once

#include <QStringList>

namespace sbw {

/// `sbw ws SUBCOMMAND …`: persistent workspaces from the command line (create, list, start,
/// stop, exec, pause, resume, hibernate, checkpoint, revert, rm). `arguments` starts with the
/// program name as it should appear in messages ("sbw ws"), then the subcommand. Returns the
/// process exit status: 0, 2 for usage errors, 125 when the workbench failed; `exec` returns
/// the command's own status (128+N for signal N, 124 on timeout, 130 when interrupted).
int workspaceCommand(const QStringList& arguments);

} // namespace sbw
