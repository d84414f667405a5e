#pragma once

#include "workspace/WorkspaceState.h"

#include <QColor>
#include <QIcon>

namespace sbw {

/// The colour a workspace state is shown in: green running, light green starting, amber
/// paused, blue hibernated, grey stopped, red crashed, dark grey unknown. One palette for the
/// session list, the workspace pane and the graphs.
QColor stateColor(WorkspaceState state);
/// A filled circle in stateColor(state), 12 px, for list rows and headings.
QIcon stateBadge(WorkspaceState state);

} // namespace sbw
