#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace sbw {

class GuestSession;

/// The guest program holding the client end of a TCP connection on the guest's loopback, found
/// through the guest's /proc: the program that opened a connection to the egress proxy's port.
struct GuestProgram
{
    qint64 pid = 0;
    /// The process's name (/proc/PID/comm, at most 15 bytes, whatever the process set); only
    /// letters, digits and ._+- are kept, anything else is shown as '?'.
    QString name;
    /// Its command line, arguments separated by spaces, shown visibly (oneLineVisible()) and cut
    /// to kCommandLineChars.
    QString commandLine;

    static constexpr qsizetype kCommandLineChars = 300;

    /// How the program names the guest actor of its connection (Actor::name):
    /// "python3 (pid 412, 127.0.0.1:40112): python3 -m pip install sbwdemo".
    QString actorName(quint16 clientPort) const;
    /// The program's name from such an actor name ("python3"), or empty for any other name
    /// (e.g. "127.0.0.1:40112", a connection whose program was not looked up).
    static QString nameOfActor(const QString& actorName);
};

/// The shell command that prints, for the connection from 127.0.0.1:clientPort to
/// 127.0.0.1:serverPort (/proc/net/tcp), "pid PID", "comm NAME" and "cmdline ARGS…" of the first
/// process holding its socket; nothing when there is none. One `find`, no other process per
/// file descriptor.
QByteArray loopbackClientProbeCommand(quint16 clientPort, quint16 serverPort);

/// Parses what loopbackClientProbeCommand() printed; nullopt when it names no process.
std::optional<GuestProgram> parseLoopbackClient(QByteArrayView output);

/// Runs loopbackClientProbeCommand() on `session`, bounded by a 10 s timeout (a paused guest
/// answers nothing). Errors: as GuestSession::exec. Blocks: call it from a worker thread.
Expected<std::optional<GuestProgram>> probeLoopbackClient(GuestSession& session, quint16 clientPort,
                                                          quint16 serverPort);

/// A function naming the program behind the client end of 127.0.0.1:clientPort →
/// 127.0.0.1:serverPort in `session`'s guest as GuestProgram::actorName(), or returning ""
/// when the session has gone or the guest names none (a failed probe is logged). Blocks.
std::function<QString()> loopbackClientFinder(std::weak_ptr<GuestSession> session, quint16 clientPort,
                                               quint16 serverPort);

} // namespace sbw
