#include "guest/LoopbackClientProbe.h"

#include "base/Logging.h"
#include "base/VisibleText.h"
#include "guest/GuestSession.h"

namespace sbw {
namespace {

/// An address of /proc/net/tcp: 127.0.0.1 as the kernel prints it (little-endian hex) and the
/// port in big-endian hex, e.g. "0100007F:0C38".
QByteArray procLoopbackAddress(quint16 port)
{
    return "0100007F:" + QByteArray::number(port, 16).toUpper().rightJustified(4, '0');
}

} // namespace

QString GuestProgram::actorName(quint16 clientPort) const
{
    // One arg() call: a chained one would read a "%2" in the guest's text as its own marker.
    return QStringLiteral("%1 (pid %2, 127.0.0.1:%3): %4")
        .arg(name, QString::number(pid), QString::number(clientPort), commandLine);
}

QString GuestProgram::nameOfActor(const QString& actorName)
{
    // plainProcessName() leaves no " (" in a name, so the first one ends it.
    const qsizetype end = actorName.indexOf(QLatin1String(" (pid "));
    return end > 0 ? actorName.left(end) : QString();
}

QByteArray loopbackClientProbeCommand(quint16 clientPort, quint16 serverPort)
{
    // The socket's inode from the connection's line (fields: sl local remote st queues timers
    // retransmits uid timeout inode), then the first /proc/PID/fd/N linking to "socket:[INODE]".
    return "exec 2>/dev/null; while read -r _ src dst _ _ _ _ _ _ inode _; do "
           "[ \"$src\" = " + procLoopbackAddress(clientPort) + " ] && [ \"$dst\" = " +
           procLoopbackAddress(serverPort) + " ] || continue; "
           "fd=$(find /proc/[0-9]*/fd -maxdepth 1 -lname \"socket:\\[$inode\\]\" -print -quit); "
           "[ -n \"$fd\" ] || exit 0; pid=${fd#/proc/}; pid=${pid%%/*}; "
           "echo \"pid $pid\"; echo \"comm $(cat /proc/$pid/comm)\"; "
           "printf 'cmdline '; tr '\\000' ' ' </proc/$pid/cmdline; exit 0; "
           "done </proc/net/tcp; exit 0";
}

std::optional<GuestProgram> parseLoopbackClient(QByteArrayView output)
{
    GuestProgram program;
    const QByteArray text = output.toByteArray();
    // The command line comes last and may hold line breaks of its own.
    const qsizetype commandLineAt = text.indexOf("\ncmdline ");
    const QByteArray head = commandLineAt < 0 ? text : text.left(commandLineAt);
    for (const QByteArray& line : head.split('\n')) {
        if (line.startsWith("pid "))
            program.pid = line.mid(4).trimmed().toLongLong();
        else if (line.startsWith("comm "))
            program.name = plainProcessName(QString::fromUtf8(line.mid(5).trimmed()));
    }
    if (program.pid <= 0)
        return std::nullopt;
    if (commandLineAt >= 0) {
        const QString commandLine = QString::fromUtf8(text.mid(commandLineAt + 9)).trimmed();
        program.commandLine = oneLineVisible(commandLine, GuestProgram::kCommandLineChars);
    }
    if (program.name.isEmpty())
        program.name = QStringLiteral("?");
    return program;
}

Expected<std::optional<GuestProgram>> probeLoopbackClient(GuestSession& session, quint16 clientPort,
                                                          quint16 serverPort)
{
    ExecRequest request;
    request.command = loopbackClientProbeCommand(clientPort, serverPort);
    request.timeout = std::chrono::seconds(10);
    QByteArray output;
    request.onStdout = [&](QByteArrayView bytes) {
        if (output.size() < 64 * 1024)
            output.append(bytes);
    };
    auto status = session.exec(request);
    if (!status)
        return status.error();
    if (status->timedOut)
        return makeError(QStringLiteral("the guest did not name the program in time"));
    return parseLoopbackClient(output);
}

std::function<QString()> loopbackClientFinder(std::weak_ptr<GuestSession> session, quint16 clientPort,
                                               quint16 serverPort)
{
    return [session = std::move(session), clientPort, serverPort] {
        const std::shared_ptr<GuestSession> open = session.lock();
        if (!open)
            return QString();
        const auto program = probeLoopbackClient(*open, clientPort, serverPort);
        if (!program) {
            qCInfo(lcChannel) << "cannot name the guest program on 127.0.0.1:" << clientPort << ":"
                              << program.error().message;
            return QString();
        }
        return program->has_value() ? program.value()->actorName(clientPort) : QString();
    };
}

} // namespace sbw
