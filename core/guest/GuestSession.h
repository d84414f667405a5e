#pragma once

#include "base/CancelFlags.h"
#include "base/Expected.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace sbw {

class ClientKey;
class ReverseForward;
class SshSessionThread;
class SftpClient;
class ShellChannel;

/// One command to run in the guest through the SSH session.
struct ExecRequest
{
    /// Shell command line, run by the guest user's login shell as `$SHELL -c command`. The
    /// session prepends a line that records the shell's PID (which is its process group and
    /// session ID, because sshd calls setsid()), so end the line with `exec PROGRAM …` to keep
    /// the program's own exit status or signal.
    QByteArray command;
    QByteArray stdinData;                  ///< written to the command's stdin, then EOF
    std::chrono::milliseconds timeout{0};  ///< 0: none. On expiry the whole session is killed.
    /// Called as stdout bytes arrive, on the session's I/O thread while exec() blocks; it must
    /// not call back into the session.
    std::function<void(QByteArrayView)> onStdout;
    std::function<void(QByteArrayView)> onStderr; ///< as onStdout, for stderr
    CancelFlags cancel; ///< when one of them is set, the command is killed
};

/// How a command ended. Exactly one of exitStatus / signal is set when the guest reported it.
struct ExecStatus
{
    std::optional<int> exitStatus; ///< 0–255, from the SSH "exit-status" reply
    std::optional<int> signal;     ///< signal number (Linux numbering) from "exit-signal"
    bool timedOut = false;         ///< killed by the host because ExecRequest::timeout expired
    bool cancelled = false;        ///< killed because ExecRequest::cancel became true
};

/// A long-lived libssh client session to a guest's sshd over a file descriptor (one end of a
/// VirtioSerialBridge). One session multiplexes all channels of a sandbox; a fresh session costs
/// about a second under TCG, a channel on an open one about 0.1 s (see ARCHITECTURE.md).
///
/// One I/O thread owns the libssh session (see SshSessionThread) and serves every channel at once:
/// exec() from several threads, ShellChannel PTYs and SftpClient transfers run concurrently.
///
/// Thread-safety: every member is thread-safe. exec() and SftpClient calls block their caller,
/// so call them from worker threads, never from the GUI thread or an output callback.
class GuestSession
{
public:
    /// What the guest's sshd sends first (RFC 4253 version exchange): the greeting that a
    /// channel to it waits for before the client speaks (VirtioSerialBridge::open).
    static inline const QByteArray kServerGreeting = QByteArrayLiteral("SSH-2.0-");

    /// Performs the SSH handshake on `fd` (taking ownership), checks that the guest's host key
    /// is `expectedHostKey` ("ssh-ed25519 AAAA…", from the image manifest) and logs in as root
    /// with `key`. Waits for the guest's banner until `deadline`, which is how readiness is
    /// detected. Errors: deadline passed ("guest did not answer within N s"), cancelled,
    /// host key mismatch, authentication refused.
    static Expected<std::unique_ptr<GuestSession>> connect(
        int fd, const ClientKey& key, const QString& expectedHostKey,
        std::chrono::steady_clock::time_point deadline, CancelFlags cancel);
    /// Ends the SSH session: open shells report errorOccurred() and closed(), SftpClient calls
    /// and execs in flight fail with "the guest session was closed".
    ~GuestSession();

    /// Ends the SSH session now, as the destructor does, for every holder of this object: open
    /// shells report errorOccurred() and closed(), SftpClient calls and execs in flight or made
    /// later fail with "the guest session was closed". Lets the owner of a sandbox end a session
    /// that others (terminal tabs, a file tree) still point to. Idempotent; blocks until the
    /// session's I/O thread has ended (after the step it is in, usually milliseconds).
    void close();

    /// Runs `request` and blocks until the command ends, its timeout expires or it is cancelled
    /// (in the last two cases every process of its session is sent SIGKILL). Several execs may
    /// run at once from different threads. Errors: the session broke (guest gone) or the
    /// channel could not be opened; ErrorCode::Unanswered when the guest never answered the
    /// channel request (after 30 s): the command did not start, and the session is likely
    /// wedged; a new session may succeed.
    Expected<ExecStatus> exec(const ExecRequest& request);

    /// Starts a login shell on a pseudo-terminal of `cols` × `rows` cells with TERM=`term`, or,
    /// when `command` is not empty, runs that shell command line on the pseudo-terminal instead.
    /// Returns at once; the channel opens in the background (see ShellChannel for its
    /// signals, which arrive in the calling thread's event loop).
    std::unique_ptr<ShellChannel> openShell(int cols, int rows,
                                            const QByteArray& term = "xterm-256color",
                                            const QByteArray& command = {});

    /// False once the session has ended (closed, or the connection to the guest broke): its
    /// channels fail at once then.
    bool isOpen() const;

    /// Opens an SFTP subsystem channel on this session. Blocks for one round trip. Errors: the
    /// session broke, the guest has no SFTP server.
    Expected<std::unique_ptr<SftpClient>> openSftp();

    /// Makes the guest's sshd listen on 127.0.0.1:`port` (0: a port it picks) and hands each
    /// connection made there to `accept` (see ReverseForward). Blocks for one round trip.
    /// Errors: the guest refused (port taken, forwarding disabled), the session broke.
    Expected<std::unique_ptr<ReverseForward>> listenForward(quint16 port,
                                                            std::function<void(int fd, quint16 sourcePort)> accept);

    /// Connects to 127.0.0.1:`port` inside the guest through this session (a direct-tcpip
    /// channel, `ssh -L`; see openDirectTcpip()): returns the host's end of a nonblocking
    /// AF_UNIX stream socket that the caller owns. Blocks for one round trip. Errors: nothing
    /// listens there, the session broke.
    Expected<int> connectForward(quint16 port);

private:
    explicit GuestSession(std::shared_ptr<SshSessionThread> loop);
    void startExec(ExecRequest request, std::function<void(Expected<ExecStatus>)> done);

    std::shared_ptr<SshSessionThread> m_loop;
    std::atomic<quint64> m_nextExecId{1};
};

/// Linux signal number for an SSH signal name ("KILL" → 9); 0 when unknown.
int signalNumber(const QByteArray& sshName);

} // namespace sbw
