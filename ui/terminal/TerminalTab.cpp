#include "terminal/TerminalTab.h"

#include "base/Async.h"
#include "base/Logging.h"
#include "guest/GuestSession.h"
#include "guest/ShellChannel.h"
#include "log/AsciicastRecorder.h"
#include "terminal/TerminalWidget.h"

#include <QDateTime>
#include <QVBoxLayout>

namespace sbw {

/// What a try to reconnect found: a session and the shell's presence on it.
struct TerminalTab::Reattachment
{
    std::shared_ptr<GuestSession> session;
    DetachableShell::Found found;
};

TerminalTab::TerminalTab(std::shared_ptr<GuestSession> session, SessionProvider sessionProvider,
                         Lifetime lifetime, const QString& sandboxName, const QString& label,
                         QWidget* parent)
    : QWidget(parent), m_session(std::move(session)), m_sessionProvider(std::move(sessionProvider)),
      m_terminal(new TerminalWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_terminal);

    const QDateTime start = QDateTime::currentDateTimeUtc();
    auto recorder =
        AsciicastRecorder::create(AsciicastRecorder::defaultPath(sandboxName, label, start),
                                  m_terminal->cols(), m_terminal->rows(), start);
    if (recorder)
        m_recorder = std::move(recorder.value());
    else
        qCWarning(lcChannel) << "terminal not recorded:" << recorder.error().message;

    if (lifetime == Lifetime::Detachable)
        m_detachable.emplace();
    openChannel(m_detachable ? m_detachable->startCommand() : QByteArray());
    connect(m_terminal, &TerminalWidget::inputReady, this, [this](const QByteArray& bytes) {
        if (m_ended)
            return;
        if (m_disconnected)
            return reconnect(); // a key typed now is not for a shell that is not there
        if (m_channelSpoke)
            m_shell->write(bytes);
        else
            m_heldInput += bytes;
        if (m_recorder)
            m_recorder->input(bytes);
    });
    connect(m_terminal, &TerminalWidget::sizeChanged, this, [this](int cols, int rows) {
        m_shell->resize(cols, rows);
        if (m_recorder)
            m_recorder->resize(cols, rows);
    });
    connect(m_terminal, &TerminalWidget::titleChanged, this, &TerminalTab::titleChanged);
    setFocusProxy(m_terminal);
}

TerminalTab::~TerminalTab()
{
    if (!m_detachable || m_ended || !m_session->isOpen())
        return;
    // Closing the tab ends its shell, as closing a terminal window would: dtach would keep it.
    // (A tab closed while disconnected leaves its shell until the guest restarts.)
    runAsync([session = m_session, shell = *m_detachable] {
        if (auto ended = shell.end(*session); !ended)
            qCWarning(lcChannel) << "cannot end the closed terminal's shell" << shell.id() << ":"
                                 << ended.error().message;
    });
}

QString TerminalTab::recordingPath() const
{
    return m_recorder ? m_recorder->path() : QString();
}

void TerminalTab::openChannel(const QByteArray& command)
{
    m_error.clear();
    m_channelOpened = false;
    // dtach's client puts the channel's terminal in raw mode before its first output; a key
    // sent earlier would be echoed by that terminal and the clear after it left on the screen.
    m_channelSpoke = !m_detachable;
    m_dtachOutput = {};
    m_shell =
        m_session->openShell(m_terminal->cols(), m_terminal->rows(), "xterm-256color", command);
    connect(m_shell.get(), &ShellChannel::opened, this, [this] { m_channelOpened = true; });
    connect(m_shell.get(), &ShellChannel::output, this, &TerminalTab::onOutput);
    connect(m_shell.get(), &ShellChannel::errorOccurred, this,
            [this](const QString& message) { m_error = message; });
    connect(m_shell.get(), &ShellChannel::closed, this, &TerminalTab::onClosed);
}

void TerminalTab::onOutput(const QByteArray& bytes)
{
    if (!m_channelSpoke) {
        m_channelSpoke = true;
        m_shell->write(std::exchange(m_heldInput, {}));
    }
    const QByteArray shown = m_detachable ? m_dtachOutput.filter(bytes) : bytes;
    if (shown.isEmpty())
        return;
    m_terminal->feed(shown);
    if (m_recorder)
        m_recorder->output(shown);
}

void TerminalTab::onClosed(std::optional<int> exitStatus)
{
    if (const QByteArray held = m_dtachOutput.finish(); !held.isEmpty()) {
        m_terminal->feed(held);
        if (m_recorder)
            m_recorder->output(held);
    }
    const QString how = exitStatus          ? tr("exit status %1").arg(*exitStatus)
                        : m_error.isEmpty() ? tr("closed")
                                            : m_error;
    // Without an exit status the channel broke (or was never opened): a detachable shell is
    // still there, or find() will say it is not.
    if (!m_detachable || exitStatus)
        return end(how);
    m_disconnected = true;
    m_lastFailure.clear();
    note(tr("disconnected: %1; reconnecting when the guest answers…").arg(how));
    Q_EMIT disconnected(how);
    // A channel that never opened failed on a session that is no use; the owner's reconnect()
    // or a key tries again.
    if (m_channelOpened)
        reconnect();
}

void TerminalTab::reconnect()
{
    if (!m_disconnected)
        return;
    if (m_reconnecting) {
        m_reconnectAgain = true;
        return;
    }
    m_reconnecting = true;
    runThen(
        this,
        [provider = m_sessionProvider, shell = *m_detachable]() -> Expected<Reattachment> {
            auto session = provider();
            if (!session)
                return session.error();
            auto found = shell.find(*session.value());
            if (!found)
                return found.error();
            return Reattachment{session.value(), found.value()};
        },
        [this](const Expected<Reattachment>& result) { onReattachment(result); });
}

void TerminalTab::onReattachment(const Expected<Reattachment>& result)
{
    m_reconnecting = false;
    if (!result) {
        if (result.error().message != m_lastFailure)
            note(tr("cannot reconnect yet: %1").arg(result.error().message));
        m_lastFailure = result.error().message;
        if (std::exchange(m_reconnectAgain, false))
            reconnect();
        return;
    }
    m_reconnectAgain = false;
    m_session = result->session;
    using Presence = DetachableShell::Presence;
    switch (result->found.presence) {
    case Presence::Running:
        m_disconnected = false;
        note(tr("reconnected to the same shell"));
        openChannel(m_detachable->attachCommand());
        Q_EMIT reconnected(true);
        return;
    case Presence::Ended:
        m_disconnected = false;
        return end(tr("exit status %1, while disconnected").arg(result->found.exitStatus));
    case Presence::Gone:
        note(tr("this tab's shell no longer exists in the guest (a stop and start ends it, and so "
                "does a revert to a checkpoint taken before it started): this is a new shell"));
        break;
    case Presence::Unsupported:
        note(tr("the guest has no dtach, so this tab's shell ended with the connection: this is a "
                "new shell"));
        break;
    }
    m_disconnected = false;
    m_detachable.emplace();
    openChannel(m_detachable->startCommand());
    Q_EMIT reconnected(false);
}

void TerminalTab::end(const QString& how)
{
    m_ended = true;
    note(tr("shell ended: %1").arg(how));
    if (m_recorder)
        m_recorder->finish();
    Q_EMIT ended(how);
}

void TerminalTab::note(const QString& text)
{
    m_terminal->feed(QByteArray("\r\n\x1b[0;2m[") + text.toUtf8() + "]\x1b[0m\r\n");
}

} // namespace sbw
