#pragma once

#include <QString>

namespace sbw {

/// A signal number as people read it: "9 (SIGKILL)", from glibc's abbreviations
/// (sigabbrev_np); the bare number when glibc has no name for it. Guests run Linux on the same
/// architecture as the host, so their signal numbers are the host's.
QString signalText(int number);

} // namespace sbw
