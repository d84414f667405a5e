#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

namespace sbw {

class SshSessionThread;

/// An interactive login shell on a pseudo-terminal in the guest: one SSH "session" channel with
/// a "pty-req" and a "shell" request (or an "exec" request for a command on the terminal, such
/// as a terminal multiplexer's client), multiplexed with every other channel of the sandbox's
/// GuestSession. Made by GuestSession::openShell().
///
/// The PTY merges the program's stdout and stderr into one stream of terminal bytes (escape
/// sequences, UTF-8 or anything else the program writes), delivered unchanged by output().
///
/// Thread-safety: write(), resize() and close() may be called from any thread and never block.
/// Signals are emitted in the thread this object lives in (queued from the session's I/O
/// thread), which needs a running event loop; output arrives in order, before closed().
class ShellChannel : public QObject
{
    Q_OBJECT

public:
    /// Closes the channel (the guest's shell gets SIGHUP); no signals follow.
    ~ShellChannel() override;

    /// Sends `bytes` to the shell's terminal as typed input (so "\x03" is Ctrl-C). Bytes written
    /// before the shell is open are sent once it is.
    void write(const QByteArray& bytes);

    /// Changes the terminal's size in cells (SSH "window-change"; the guest's programs get
    /// SIGWINCH). Sizes below 1 are raised to 1.
    void resize(int cols, int rows);

    /// Ends the shell from the host side; closed(std::nullopt) follows.
    void close();

    /// True between opened() and closed().
    bool isOpen() const;

Q_SIGNALS:
    /// The guest accepted the PTY and started the shell.
    void opened();
    /// Terminal output, at most one signal per burst that arrived from the guest.
    void output(const QByteArray& bytes);
    /// The channel could not be opened, or the session broke; closed() follows.
    void errorOccurred(const QString& message);
    /// The shell ended: with the shell's exit status when the guest reported one (it reports
    /// none when killed by a signal, when close() was called or when the session broke).
    void closed(std::optional<int> exitStatus);

private:
    friend class GuestSession;
    ShellChannel(std::shared_ptr<SshSessionThread> loop, int cols, int rows, const QByteArray& term,
                 const QByteArray& command);

    struct Shared;
    class Job;
    void deliver();

    std::shared_ptr<SshSessionThread> m_loop;
    std::shared_ptr<Shared> m_shared;
    bool m_open = false;
    bool m_closed = false;
};

} // namespace sbw
