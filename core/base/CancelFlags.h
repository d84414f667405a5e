#pragma once

#include <QVarLengthArray>

#include <atomic>

namespace sbw {

/// The flags any one of which cancels a blocking operation, e.g. an exec: the caller's (a
/// Cancel button, an MCP client's notifications/cancelled, a signal handler) and the
/// operation's own (an output cap). They are atomics rather than std::stop_source because a
/// signal handler sets one (request_stop() is not async-signal-safe). They are read by the loop
/// that already wakes for the operation (the guest session's I/O loop, the SSH handshake), so
/// no thread exists only to watch them. A copy reads the same flags; each must outlive the
/// operation. Up to four are held inline; more are kept too.
class CancelFlags
{
public:
    CancelFlags() = default;
    /// One flag; null: nothing cancels.
    CancelFlags(const std::atomic_bool* flag) { add(flag); }

    /// Adds `flag` (ignored when null).
    void add(const std::atomic_bool* flag)
    {
        if (flag)
            m_flags.append(flag);
    }

    /// Whether any flag is set.
    bool requested() const
    {
        for (const std::atomic_bool* flag : m_flags) {
            if (flag->load())
                return true;
        }
        return false;
    }

private:
    QVarLengthArray<const std::atomic_bool*, 4> m_flags;
};

} // namespace sbw
