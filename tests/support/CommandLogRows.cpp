#include "CommandLogRows.h"

namespace sbw::test {

qint64 logExec(CommandLog& log, const ActionStart& start, OutputStream stream, const QByteArray& output,
               int exitStatus)
{
    const qint64 id = log.begin(start).value();
    log.appendOutput(id, stream, output);
    ActionEnd end;
    end.outcome = exitStatus == 0 ? Outcome::Succeeded : Outcome::Failed;
    end.exitStatus = exitStatus;
    log.finish(id, end);
    return id;
}

qint64 logApproval(CommandLog& log, const QString& sandbox, const Actor& actor, qint64 waitedMs)
{
    ActionStart start;
    start.sandbox = sandbox;
    start.actor = actor;
    start.kind = ActionKind::Approval;
    start.command = QStringLiteral("exec: make install");
    start.approval = Approval::Approved;
    start.approver = QStringLiteral("alice");
    start.elapsedMs = waitedMs;
    const qint64 id = log.begin(start).value();
    log.finish(id, {});
    return id;
}

std::optional<LoggedRow> newestRow(const QString& sandbox)
{
    auto log = CommandLog::open(CommandLog::defaultPath());
    if (!log)
        return std::nullopt;
    LogFilter filter;
    filter.sandbox = sandbox;
    const auto rows = log.value()->rows(filter, 1);
    if (!rows || rows->isEmpty())
        return std::nullopt;
    const auto output = log.value()->output(rows->first().id, OutputStream::Stdout);
    return LoggedRow{rows->first(), output ? output.value() : QByteArray()};
}

} // namespace sbw::test
