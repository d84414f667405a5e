#pragma once

#include "base/Expected.h"

#include <QString>

#include <atomic>
#include <functional>

namespace sbw {

/// One of the places for a running sandbox on one host, shared by every process of one user on
/// this machine (the window, `sbw run`, `sbw mcp`): while `max` are held, the next asker waits
/// in a queue, first come first served. A remote host's places are its own (a folder per
/// host); runs that other machines start there are not counted.
///
/// Files in `<state>/capacity/`, held with flock(2), so a process that dies frees its place and
/// its ticket at once: `slot-N` (N < max) for the places, `queue/<time>-<pid>-<n>` for the
/// waiting. A waiter's position is the number of live tickets older than its own; only the
/// oldest takes a place. It looks again every 100 ms.
class SandboxSlot
{
public:
    /// Waits for a place among `max` on the host of `remoteUri` (empty: the daemon on this
    /// machine), calling `onQueued(ahead)` whenever the number of runs ahead of this one changes
    /// while it waits (not when a place is free at once). Errors: cancelled, the folder cannot
    /// be written.
    static Expected<SandboxSlot> acquire(int max, const std::function<void(int ahead)>& onQueued,
                                         const std::atomic_bool* cancel, const QString& remoteUri = {});

    SandboxSlot(SandboxSlot&& other) noexcept;
    SandboxSlot& operator=(SandboxSlot&& other) noexcept;
    SandboxSlot(const SandboxSlot&) = delete;
    SandboxSlot& operator=(const SandboxSlot&) = delete;
    /// Frees the place.
    ~SandboxSlot();

    int index() const { return m_index; }

private:
    SandboxSlot(int fd, int index) : m_fd(fd), m_index(index) {}

    int m_fd = -1;
    int m_index = -1;
};

} // namespace sbw
