#include "terminal/TerminalTab.h"

#include "base/Logging.h"
#include "guest/GuestSession.h"
#include "guest/ShellChannel.h"
#include "log/AsciicastRecorder.h"
#include "terminal/TerminalWidget.h"

#include <QDateTime>
#include <QVBoxLayout>

namespace sbw {

TerminalTab::TerminalTab(std::shared_ptr<GuestSession> session, const QString& sandboxName,
                         const QString& label, QWidget* parent)
    : QWidget(parent), m_session(std::move(session)), m_terminal(new TerminalWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_terminal);

    const QDateTime start = QDateTime::currentDateTimeUtc();
    auto recorder = AsciicastRecorder::create(AsciicastRecorder::defaultPath(sandboxName, label, start),
                                              m_terminal->cols(), m_terminal->rows(), start);
    if (recorder)
        m_recorder = std::move(recorder.value());
    else
        qCWarning(lcChannel) << "terminal not recorded:" << recorder.error().message;

    m_shell = m_session->openShell(m_terminal->cols(), m_terminal->rows());
    connect(m_shell.get(), &ShellChannel::output, this, [this](const QByteArray& bytes) {
        m_terminal->feed(bytes);
        if (m_recorder)
            m_recorder->output(bytes);
    });
    connect(m_shell.get(), &ShellChannel::errorOccurred, this,
            [this](const QString& message) { m_error = message; });
    connect(m_shell.get(), &ShellChannel::closed, this, &TerminalTab::onClosed);
    connect(m_terminal, &TerminalWidget::inputReady, this, [this](const QByteArray& bytes) {
        if (m_ended)
            return;
        m_shell->write(bytes);
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

TerminalTab::~TerminalTab() = default;

QString TerminalTab::recordingPath() const
{
    return m_recorder ? m_recorder->path() : QString();
}

void TerminalTab::onClosed(std::optional<int> exitStatus)
{
    m_ended = true;
    const QString how = exitStatus ? tr("exit status %1").arg(*exitStatus)
                        : m_error.isEmpty() ? tr("closed")
                                            : m_error;
    // The workbench's own line, after whatever the guest left on the screen.
    m_terminal->feed(QByteArray("\r\n\x1b[0;2m[shell ended: ") + how.toUtf8() + "]\x1b[0m\r\n");
    if (m_recorder)
        m_recorder->finish();
    Q_EMIT ended(how);
}

} // namespace sbw
