#pragma once

#include <QString>

namespace sbw {

/// Where a run waiting for a place (SandboxSlot::acquire) stands, in the words the window, the
/// CLI and MCP progress notifications share: "2 runs ahead; at most 2 microVMs at once", or,
/// with nobody ahead, "next; waiting for one of the 2 running microVMs to end".
QString queuePositionText(int ahead, int maxSandboxes);

} // namespace sbw
