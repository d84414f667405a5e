#include "guest/DetachableShell.h"

#include "guest/GuestSession.h"

#include <QList>
#include <QUuid>

namespace sbw {

namespace {

/// dtach's options for every client: no detach key (-E) and no suspend key (-z), so that every
/// byte typed reaches the shell, and on attaching the shell's terminal takes the tab's size and
/// its program gets SIGWINCH (-r winch): dtach sets the size only with a redraw, and a SIGWINCH
/// is the redraw that keeps the screen (a full-screen program draws itself again, bash its
/// prompt line); the tab's own terminal emulator still shows everything before.
constexpr char kClientOptions[] = " -E -z -r winch";

/// After dtach's client has exited: the shell's exit status when it ended, else dtach's.
constexpr char kExitStatus[] =
    "s=$?\n"
    "if [ -f \"$D/exit\" ]; then read -r s <\"$D/exit\"; rm -rf \"$D\"; fi\n"
    "exit \"$s\"\n";

} // namespace

DetachableShell::DetachableShell() : m_id(QUuid::createUuid().toString(QUuid::Id128)) {}

QByteArray DetachableShell::directoryLine() const
{
    // The ID is hex digits only: nothing in it needs quoting.
    return "D=/run/sbw-terminals/" + m_id.toLatin1() + '\n';
}

QByteArray DetachableShell::startCommand() const
{
    // The shell's parent is dtach's master: its PID is what end() signals.
    return directoryLine() +
           "command -v dtach >/dev/null && mkdir -p -m 700 \"$D\" || exec \"$SHELL\" -l\n"
           "dtach -c \"$D/socket\"" +
           kClientOptions +
           " /bin/sh -c 'echo $PPID >\"$0/pid\"; \"$SHELL\" -l; echo $? >\"$0/exit\"' \"$D\"\n" +
           kExitStatus;
}

QByteArray DetachableShell::attachCommand() const
{
    return directoryLine() + "dtach -a \"$D/socket\"" + kClientOptions + '\n' + kExitStatus;
}

Expected<DetachableShell::Found> DetachableShell::find(GuestSession& session) const
{
    QByteArray answer;
    ExecRequest request;
    request.command =
        directoryLine() +
        "if [ -S \"$D/socket\" ]; then echo running\n"
        "elif [ -f \"$D/exit\" ]; then echo ended \"$(cat \"$D/exit\")\"; rm -rf \"$D\"\n"
        "elif command -v dtach >/dev/null; then echo gone\n"
        "else echo unsupported; fi\n";
    request.timeout = std::chrono::seconds(30);
    request.onStdout = [&answer](QByteArrayView bytes) { answer.append(bytes); };
    auto status = session.exec(request);
    if (!status)
        return status.error();
    const QList<QByteArray> words = answer.trimmed().split(' ');
    Found found;
    bool ok = true;
    if (words.value(0) == "running")
        found.presence = Presence::Running;
    else if (words.value(0) == "ended")
        found = {Presence::Ended, words.value(1).toInt(&ok)};
    else if (words.value(0) == "gone")
        found.presence = Presence::Gone;
    else if (words.value(0) == "unsupported")
        found.presence = Presence::Unsupported;
    else
        ok = false;
    if (!ok || status->exitStatus != 0)
        return makeError(QStringLiteral("cannot tell whether the terminal's shell still runs in "
                                        "the guest (answer '%1')")
                             .arg(QString::fromUtf8(answer.trimmed().left(80))));
    return found;
}

Expected<void> DetachableShell::end(GuestSession& session) const
{
    ExecRequest request;
    request.command = directoryLine() +
                      "if [ -S \"$D/socket\" ]; then kill -TERM \"$(cat \"$D/pid\")\"; fi\n"
                      "rm -rf \"$D\"\n";
    request.timeout = std::chrono::seconds(30);
    auto status = session.exec(request);
    if (!status)
        return status.error();
    return {};
}

} // namespace sbw
