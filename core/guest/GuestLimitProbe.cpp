#include "guest/GuestLimitProbe.h"

#include "base/VisibleText.h"
#include "guest/GuestSession.h"

#include <QRegularExpression>

namespace sbw {

bool GuestLimitReport::oomKillWithin(double seconds) const
{
    return oomKills > 0 && oomVictimAtSeconds >= 0 && uptimeSeconds >= 0 &&
           oomVictimAtSeconds >= uptimeSeconds - seconds - 2.0;
}

bool GuestLimitReport::rootFull() const
{
    return rootBytes > 0 && rootAvailableBytes >= 0 && rootAvailableBytes < kRootFullBytes;
}

QByteArray guestLimitProbeCommand()
{
    return "exec 2>/dev/null; grep -m 1 '^oom_kill ' /proc/vmstat; "
           "dmesg | grep -F 'Out of memory: Killed process' | tail -n 1; "
           "stat -f -c 'root %b %a %S' /; read -r up _ < /proc/uptime; echo \"uptime $up\"; "
           "exit 0";
}

GuestLimitReport parseGuestLimitReport(QByteArrayView output)
{
    static const QRegularExpression victim(
        QStringLiteral("Out of memory: Killed process (\\d+) \\(([^)]{0,64})\\)"));
    static const QRegularExpression timestamp(QStringLiteral("^\\[\\s*(\\d+\\.\\d+)\\]"));
    GuestLimitReport report;
    for (const QByteArray& rawLine : output.toByteArray().split('\n')) {
        const QString line = QString::fromUtf8(rawLine).trimmed();
        const QStringList words = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (words.size() == 2 && words[0] == QLatin1String("oom_kill")) {
            report.oomKills = words[1].toInt();
        } else if (words.size() == 2 && words[0] == QLatin1String("uptime")) {
            bool ok = false;
            const double seconds = words[1].toDouble(&ok);
            if (ok)
                report.uptimeSeconds = seconds;
        } else if (words.size() == 4 && words[0] == QLatin1String("root")) {
            bool ok1 = false, ok2 = false, ok3 = false;
            const qint64 blocks = words[1].toLongLong(&ok1);
            const qint64 available = words[2].toLongLong(&ok2);
            const qint64 blockSize = words[3].toLongLong(&ok3);
            if (ok1 && ok2 && ok3) {
                report.rootBytes = blocks * blockSize;
                report.rootAvailableBytes = available * blockSize;
            }
        } else if (const auto match = victim.match(line); match.hasMatch()) {
            report.oomVictim =
                QStringLiteral("%1 (pid %2)").arg(plainProcessName(match.captured(2)), match.captured(1));
            if (const auto at = timestamp.match(line); at.hasMatch())
                report.oomVictimAtSeconds = at.captured(1).toDouble();
        }
    }
    return report;
}

Expected<GuestLimitReport> probeGuestLimits(GuestSession& session)
{
    ExecRequest request;
    request.command = guestLimitProbeCommand();
    request.timeout = std::chrono::seconds(20);
    QByteArray output;
    request.onStdout = [&](QByteArrayView bytes) { output.append(bytes); };
    auto status = session.exec(request);
    if (!status)
        return status.error();
    if (status->timedOut)
        return makeError(QStringLiteral("the guest did not report its memory and disk in time"));
    return parseGuestLimitReport(output);
}

} // namespace sbw
