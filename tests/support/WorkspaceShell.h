#pragma once

#include <QByteArray>
#include <QString>

namespace sbw {
class Workspace;
}

namespace sbw::test {

/// Runs `shellCommand` with `sh -c` in `workspace` (Workspace::exec, waiting up to 120 s for a
/// starting guest) and gives what a test compares: its stdout when it exits 0, otherwise
/// "exit N: STDERR", or "exec failed: ERROR" when it could not run.
QByteArray shellOutput(Workspace& workspace, const QString& shellCommand);

} // namespace sbw::test
