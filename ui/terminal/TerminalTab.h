#pragma once

#include <QWidget>

#include <memory>

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
/// When the shell ends, a line from the workbench says so in the terminal and ended() is
/// emitted; the tab stays open to read.
class TerminalTab : public QWidget
{
    Q_OBJECT

public:
    /// Opens the shell at once (the channel opens in the background). `session` is kept alive
    /// by the tab. `label` names the tab and its recording ("shell 1").
    TerminalTab(std::shared_ptr<GuestSession> session, const QString& sandboxName,
                const QString& label, QWidget* parent = nullptr);
    ~TerminalTab() override;

    TerminalWidget* terminal() const { return m_terminal; }
    ShellChannel* shell() const { return m_shell.get(); }
    /// The recording's path; empty when it could not be created.
    QString recordingPath() const;
    bool hasEnded() const { return m_ended; }

Q_SIGNALS:
    /// The program set the terminal title (sanitised by TerminalWidget).
    void titleChanged(const QString& title);
    /// The shell ended; `how` is "exit status 0", "closed" or the error.
    void ended(const QString& how);

private:
    void onClosed(std::optional<int> exitStatus);

    std::shared_ptr<GuestSession> m_session;
    TerminalWidget* m_terminal;
    std::unique_ptr<ShellChannel> m_shell;
    std::unique_ptr<AsciicastRecorder> m_recorder;
    QString m_error;
    bool m_ended = false;
};

} // namespace sbw
