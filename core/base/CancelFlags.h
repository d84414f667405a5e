#pragma once

#include <array>
#include <atomic>
#include <cassert>

namespace sbw {

/// The flags any one of which cancels a blocking operation, e.g. an exec: the caller's (a
/// Cancel button, an MCP client's notifications/cancelled, a signal handler) and the
/// operation's own (an output cap). They are atomics rather than std::stop_source because a
/// signal handler sets one (request_stop() is not async-signal-safe). They are read by the loop
/// that already wakes for the operation (the guest session's I/O loop, the SSH handshake), so
/// no thread exists only to watch them. A copy reads the same flags; each must outlive the
/// operation.
class CancelFlags
{
public:
    CancelFlags() = default;
    /// One flag; null: nothing cancels.
    CancelFlags(const std::atomic_bool* flag) { add(flag); }

    /// Adds `flag` (ignored when null). Holds at most three.
    void add(const std::atomic_bool* flag)
    {
        if (!flag)
            return;
        for (const std::atomic_bool*& slot : m_flags) {
            if (!slot) {
                slot = flag;
                return;
            }
        }
        assert(!"CancelFlags holds at most three flags");
    }

    /// Whether any flag is set.
    bool requested() const
    {
        for (const std::atomic_bool* flag : m_flags) {
            if (flag && flag->load())
                return true;
        }
        return false;
    }

private:
    std::array<const std::atomic_bool*, 3> m_flags{};
};

} // namespace sbw
