#pragma once

#include <QByteArray>

namespace sbw {
class GuestSession;
}

namespace sbw::test {

/// Runs the shell command `command` `repetitions` times, one after the other, on the open
/// `session` and returns the median wall time of one exec in ms (round trip from the request
/// until the exit status arrived). Returns -1 when an exec fails (no channel, session lost;
/// the command's own exit status does not count), and for `repetitions` below 1.
qint64 medianExecMs(GuestSession& session, const QByteArray& command, int repetitions);

} // namespace sbw::test
