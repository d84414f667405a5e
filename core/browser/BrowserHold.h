#pragma once

#include "base/Expected.h"

#include <QString>

namespace sbw {

/// A person's take-over of a workspace's browser (the window's Browser tab): while a person
/// holds it, the agents' browser tools refuse their steps with the person's name.
///
/// The hold is kept on the host, in dataDir()/browser/held/<workspace>, so every program of the
/// workbench on this host sees it (the window and each `sbw mcp`) and nothing in the guest can
/// lift it. It names the holding process: a hold whose process has ended (a window that
/// crashed) no longer counts, so agents are never refused by a hold nobody can hand back.
namespace browser_hold {

/// Takes the browser of `workspace` for `person` in this process. Errors: another running
/// process holds it (its person named), the file cannot be written.
Expected<void> take(const QString& workspace, const QString& person);
/// Hands it back, when this process holds it.
void release(const QString& workspace);
/// The person holding the browser of `workspace`; empty when nobody (or an ended process) does.
QString heldBy(const QString& workspace);

} // namespace browser_hold
} // namespace sbw
