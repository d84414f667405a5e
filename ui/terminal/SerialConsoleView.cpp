#include "terminal/SerialConsoleView.h"

#include "base/VisibleText.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "terminal/TerminalWidget.h"

#include <QLabel>
#include <QVBoxLayout>
#include <libvirt/libvirt.h>

namespace sbw {
namespace {

QString stopReason(int event, int detail)
{
    if (event == VIR_DOMAIN_EVENT_CRASHED)
        return QStringLiteral("guest crashed");
    switch (detail) {
    case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN:
        return QStringLiteral("guest powered off");
    case VIR_DOMAIN_EVENT_STOPPED_DESTROYED:
        return QStringLiteral("guest destroyed");
    case VIR_DOMAIN_EVENT_STOPPED_CRASHED:
        return QStringLiteral("guest crashed");
    case VIR_DOMAIN_EVENT_STOPPED_SAVED:
        return QStringLiteral("guest saved to disk");
    case VIR_DOMAIN_EVENT_STOPPED_FAILED:
        return QStringLiteral("guest failed");
    default:
        return QStringLiteral("guest stopped");
    }
}

/// UUID of domain `name` (running or not), or an empty string when there is none.
QString domainUuid(virConnectPtr conn, const QString& name)
{
    virDomainPtr domain = conn ? virDomainLookupByName(conn, name.toUtf8().constData()) : nullptr;
    if (!domain)
        return {};
    char uuid[VIR_UUID_STRING_BUFLEN] = {};
    const bool found = virDomainGetUUIDString(domain, uuid) == 0;
    virDomainFree(domain);
    return found ? QString::fromLatin1(uuid) : QString();
}

} // namespace

SerialConsoleView::SerialConsoleView(HypervisorConnection& connection, QString domainName,
                                     QWidget* parent)
    : QWidget(parent), m_connection(connection), m_domainName(std::move(domainName)),
      m_stream(new ConsoleStream(this)), m_log(new ConsoleLog(this)),
      m_terminal(new TerminalWidget(this)), m_status(new QLabel(this))
{
    m_status->setTextFormat(Qt::PlainText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_terminal, 1);
    layout->addWidget(m_status);

    connect(m_terminal, &TerminalWidget::inputReady, this,
            [this](const QByteArray& bytes) { m_stream->write(bytes); });
    // The log holds what the stream delivers too: only one of them feeds the terminal.
    connect(m_stream, &ConsoleStream::received, this, [this](const QByteArray& bytes) {
        if (!m_log->isOpen())
            m_terminal->feed(bytes);
    });
    connect(m_log, &ConsoleLog::received, this,
            [this](const QByteArray& bytes) { m_terminal->feed(bytes); });
    connect(m_stream, &ConsoleStream::ended, this, &SerialConsoleView::onEnded);
    connect(&m_connection, &HypervisorConnection::domainLifecycle, this,
            &SerialConsoleView::onLifecycle);
    reopen();
}

QString SerialConsoleView::statusText() const
{
    return m_status->text();
}

void SerialConsoleView::setStatus(const QString& text)
{
    m_status->setText(text);
    Q_EMIT statusChanged(text);
}

void SerialConsoleView::reopen()
{
    m_stopReason.clear();
    if (m_domainUuid.isEmpty())
        m_domainUuid = domainUuid(m_connection.handle(), m_domainName);
    const Expected<void> opened = m_stream->open(m_connection.handle(), m_domainName);
    if (!opened) {
        setStatus(
            QStringLiteral("console not attached: %1").arg(makeVisible(opened.error().message)));
        return;
    }
    const QString attached =
        QStringLiteral("console attached to %1").arg(makeVisible(m_domainName));
    if (const QString missing = followLog(); !missing.isEmpty())
        setStatus(attached + QStringLiteral("; output from before it is not shown: ") +
                  makeVisible(missing));
    else
        setStatus(attached);
}

QString SerialConsoleView::followLog()
{
    if (m_log->isOpen())
        return {}; // still the log of this start of the domain
    if (!isLocalUri(m_connection.uri()))
        return QStringLiteral("the console log is on the host libvirt runs on");
    const Expected<QString> path = ConsoleLog::pathOf(m_connection.handle(), m_domainName);
    if (!path)
        return path.error().message;
    if (path->isEmpty())
        return QStringLiteral("the domain keeps no console log");
    if (const Expected<void> opened = m_log->open(path.value()); !opened)
        return opened.error().message;
    return {};
}

void SerialConsoleView::onLifecycle(const QString& uuid, int event, int detail)
{
    if (uuid.isEmpty() || uuid != m_domainUuid)
        return;
    if (event == VIR_DOMAIN_EVENT_STARTED) {
        reopen();
    } else if (event == VIR_DOMAIN_EVENT_STOPPED || event == VIR_DOMAIN_EVENT_CRASHED) {
        // The stream ends by itself (onEnded()); the guest's last bytes may still be on their way.
        m_stopReason = stopReason(event, detail);
        // The next start of the domain begins a new log; this one is read to its end.
        m_log->close();
        setStatus(QStringLiteral("console closed: %1").arg(m_stopReason));
    }
}

void SerialConsoleView::onEnded(const QString& reason)
{
    setStatus(QStringLiteral("console closed: %1")
                  .arg(m_stopReason.isEmpty() ? makeVisible(reason) : m_stopReason));
}

} // namespace sbw
