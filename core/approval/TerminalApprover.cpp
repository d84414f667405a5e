#include "approval/TerminalApprover.h"

#include "approval/ApprovalQueue.h"
#include "base/VisibleText.h"
#include "base/WriteAll.h"
#include "run/RunInputFiles.h"

#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

namespace sbw {

Expected<std::unique_ptr<TerminalApprover>> TerminalApprover::open(ApprovalQueue* queue, const QString& ttyPath)
{
    const int fd = ::open(ttyPath.toLocal8Bit().constData(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return makeError(QStringLiteral("no terminal to ask for approval (%1: %2)")
                             .arg(ttyPath, QString::fromLocal8Bit(std::strerror(errno))));
    return std::unique_ptr<TerminalApprover>(new TerminalApprover(queue, fd));
}

TerminalApprover::TerminalApprover(ApprovalQueue* queue, int fd) : m_queue(queue), m_fd(fd)
{
    m_notifier = new QSocketNotifier(fd, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &TerminalApprover::onReadable);
    connect(queue, &ApprovalQueue::added, this, [this] {
        if (!m_current)
            promptNext();
    });
    connect(queue, &ApprovalQueue::decided, this, &TerminalApprover::onDecided);
    promptNext();
}

TerminalApprover::~TerminalApprover()
{
    delete m_notifier;
    ::close(m_fd);
}

QString TerminalApprover::localUserName()
{
    if (const passwd* entry = ::getpwuid(::getuid()); entry && entry->pw_name)
        return QString::fromLocal8Bit(entry->pw_name);
    return QStringLiteral("person");
}

void TerminalApprover::promptNext()
{
    m_current = 0;
    if (!m_queue)
        return;
    const QList<PendingApproval> pending = m_queue->pending();
    if (pending.isEmpty())
        return;
    const PendingApproval& next = pending.constFirst();
    m_current = next.id;
    const ActionRequest& request = next.request;
    QString text = QStringLiteral("\nsbw: %1 asks: %2").arg(oneLineVisible(request.actor.display()), actionKindName(request.kind));
    if (!request.sandbox.isEmpty())
        text += QStringLiteral(" in workspace %1").arg(oneLineVisible(request.sandbox));
    text += QLatin1Char('\n');
    if (!request.path.isEmpty())
        text += QStringLiteral("  path: %1\n").arg(oneLineVisible(request.path));
    if (!request.workdir.isEmpty())
        text += QStringLiteral("  folder: %1\n").arg(oneLineVisible(request.workdir));
    for (const QString& variable : request.environment)
        text += QStringLiteral("  environment: %1\n").arg(oneLineVisible(variable));
    if (!request.inputFiles.isEmpty())
        text += QStringLiteral("  input files: %1\n").arg(oneLineVisible(inputFilesText(request.inputFiles)));
    if (!request.command.isEmpty())
        text += QStringLiteral("  %1\n").arg(makeVisible(request.command).replace(QLatin1Char('\n'), QStringLiteral("\n  ")));
    for (const CommandVerdict& command : next.commands)
        text += QStringLiteral("  command: %1 — %2\n").arg(oneLineVisible(command.command), oneLineVisible(command.explanation()));
    if (request.kind == ActionKind::FileWrite)
        text += QStringLiteral("  new content (%1 bytes):\n  %2\n")
                    .arg(request.content.size())
                    .arg(makeVisible(QString::fromUtf8(request.content.left(4096))).replace(QLatin1Char('\n'), QStringLiteral("\n  ")));
    text += QStringLiteral("sbw: approve? y = yes, n [REASON] = no (denied in %1 s): ")
                .arg((next.deadline.remainingTime() + 999) / 1000);
    write(text);
}

void TerminalApprover::onReadable()
{
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(m_fd, buffer, sizeof buffer);
        if (got > 0) {
            m_input.append(buffer, got);
            continue;
        }
        if (got == 0 || (errno != EAGAIN && errno != EINTR))
            m_notifier->setEnabled(false); // the terminal hung up; requests wait for their deadline
        if (got < 0 && errno == EINTR)
            continue;
        break;
    }
    for (qsizetype newline = m_input.indexOf('\n'); newline >= 0; newline = m_input.indexOf('\n')) {
        const QString line = QString::fromUtf8(m_input.left(newline)).trimmed();
        m_input.remove(0, newline + 1);
        handleLine(line);
    }
}

void TerminalApprover::handleLine(const QString& line)
{
    if (!m_current || !m_queue)
        return;
    const QString word = line.section(QLatin1Char(' '), 0, 0).toLower();
    const QString reason = line.section(QLatin1Char(' '), 1).trimmed();
    if (word == QLatin1String("y") || word == QLatin1String("yes")) {
        m_queue->approve(m_current, localUserName());
    } else if (word == QLatin1String("n") || word == QLatin1String("no")) {
        m_queue->deny(m_current, localUserName(), reason);
    } else {
        write(QStringLiteral("sbw: answer y, or n followed by a reason: "));
    }
}

void TerminalApprover::onDecided(qint64 id, const GateDecision& decision)
{
    if (id != m_current)
        return;
    if (decision.allowed)
        write(QStringLiteral("sbw: approved\n"));
    else if (decision.approval == Approval::TimedOut)
        write(QStringLiteral("\nsbw: %1; denied\n").arg(decision.reason));
    else
        write(QStringLiteral("sbw: denied: %1\n").arg(makeVisible(decision.reason)));
    promptNext();
}

void TerminalApprover::write(const QString& text)
{
    // A full or closed terminal loses the prompt; the request's deadline still holds.
    writeAll(m_fd, text.toUtf8());
}

} // namespace sbw
