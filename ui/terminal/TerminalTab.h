#pragma once

#include "base/Expected.h"
#include "guest/DetachableShell.h"
#include "guest/DtachOutputFilter.h"

#include <QWidget>
#include <functional>
#include <memory>
#include <optional>

namespace sbw {

class AsciicastRecorder;
class GuestSession;
class ShellChannel;
class TerminalWidget;

/// One terminal tab: a TerminalWidget joined to an SSH PTY login shell in the sandbox
/// (GuestSession::openShell). Typed bytes go to the shell, its output to the widget; resizing
/// the widget resizes the PTY (window-change). The session is recorded as an asciicast v2 file
/// (AsciicastRecorder::defaultPath(): <data>/recordings/<sandbox>/<time>-<tab>.cast).
///
/// A shell of Lifetime::Detachable (a workspace's) runs under dtach (DetachableShell) and
/// outlives the SSH session: when the connection breaks (hibernate, a lost libvirt connection,
/// a revert) the tab says so and reconnects, at once and on reconnect() (the owner calls it
/// when the sandbox runs again), to the same shell with its jobs; the screen keeps what it
/// showed. When that shell no longer exists in the guest (a stop and start, a revert to a
/// checkpoint taken before it) the tab says so plainly and starts a new shell. Closing the tab
/// ends its shell in the guest.
///
/// The workbench's own lines ("[disconnected: …]", "[shell ended: …]") are written into the
/// terminal, dimmed, after whatever the guest left on the screen; they are not recorded. When
/// the shell ends, ended() is emitted and the tab stays open to read.
class TerminalTab : public QWidget
{
    Q_OBJECT

public:
    /// Gets the sandbox's SSH session, connecting when there is none; blocks (run off the GUI
    /// thread).
    using SessionProvider = std::function<Expected<std::shared_ptr<GuestSession>>()>;

    /// How long the shell lives.
    enum class Lifetime
    {
        Connection, ///< a plain login shell: it ends with its SSH session (ephemeral runs)
        Detachable  ///< under dtach: it outlives the SSH session and the tab reconnects to it
    };

    /// Opens the shell at once (the channel opens in the background). `session` is kept alive
    /// by the tab; `sessionProvider` gives a new one to reconnect on. `label` names the tab and
    /// its recording ("shell 1").
    TerminalTab(std::shared_ptr<GuestSession> session, SessionProvider sessionProvider,
                Lifetime lifetime, const QString& sandboxName, const QString& label,
                QWidget* parent = nullptr);
    ~TerminalTab() override;

    TerminalWidget* terminal() const { return m_terminal; }
    ShellChannel* shell() const { return m_shell.get(); }
    /// The recording's path; empty when it could not be created.
    QString recordingPath() const;
    bool hasEnded() const { return m_ended; }
    /// True while the shell's connection is broken (Detachable only).
    bool isDisconnected() const { return m_disconnected; }

    /// While disconnected, tries to attach again (in the background): to the same shell when it
    /// still runs, else a new one. Does nothing otherwise, or while a try is under way (one more
    /// follows it when it fails).
    void reconnect();

Q_SIGNALS:
    /// The program set the terminal title (sanitised by TerminalWidget).
    void titleChanged(const QString& title);
    /// The shell ended; `how` is "exit status 0", "closed" or the error.
    void ended(const QString& how);
    /// The connection to a Detachable shell broke (`reason`); the shell may still run.
    void disconnected(const QString& reason);
    /// Attached again: to the same shell (`sameShell`), or to a new one because it was gone.
    void reconnected(bool sameShell);

private:
    struct Reattachment;
    /// Opens a PTY channel on m_session running `command` (empty: the plain login shell).
    void openChannel(const QByteArray& command);
    void onOutput(const QByteArray& bytes);
    void onClosed(std::optional<int> exitStatus);
    void onReattachment(const Expected<Reattachment>& result);
    void end(const QString& how);
    /// Writes one of the workbench's own lines into the terminal.
    void note(const QString& text);

    std::shared_ptr<GuestSession> m_session;
    SessionProvider m_sessionProvider;
    std::optional<DetachableShell> m_detachable; ///< set for Lifetime::Detachable
    TerminalWidget* m_terminal;
    std::unique_ptr<ShellChannel> m_shell;
    DtachOutputFilter m_dtachOutput; ///< of the current channel
    std::unique_ptr<AsciicastRecorder> m_recorder;
    QString m_error;
    QString m_lastFailure; ///< of the last try to reconnect, said once
    bool m_channelOpened = false;
    bool m_channelSpoke = false; ///< the current channel has sent output: input may go to it
    QByteArray m_heldInput;      ///< typed before that
    bool m_ended = false;
    bool m_disconnected = false;
    bool m_reconnecting = false;
    bool m_reconnectAgain = false;
};

} // namespace sbw
