#include "log/CommandLogExport.h"

#include "changes/FileChangeJson.h"

#include <QJsonDocument>
#include <QStringList>

namespace sbw {
namespace {

const char* const kKeys[] = {"id", "started", "ended", "sandbox", "actor", "actor_name", "action",
                             "command", "workdir", "exit_status", "signal", "outcome", "error",
                             "duration_ms", "stdout_bytes", "stderr_bytes", "stdout_capped",
                             "stderr_capped", "approval", "approver", "network_address",
                             "bytes_sent", "bytes_received", "url_before", "url_after", "files",
                             "file_changes_summary"};

QJsonValue timeValue(const QDateTime& time)
{
    return time.isValid() ? QJsonValue(time.toUTC().toString(Qt::ISODateWithMs)) : QJsonValue();
}

QJsonValue optionalValue(const std::optional<int>& value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

QString csvCell(const QJsonValue& value)
{
    QString text;
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        return {};
    case QJsonValue::Bool:
        text = value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        break;
    case QJsonValue::Double:
        text = QString::number(qint64(value.toDouble()));
        break;
    default:
        text = value.toString();
        break;
    }
    static const QString formulaStarts = QStringLiteral("=+-@\t\r");
    if (!text.isEmpty() && value.isString() && formulaStarts.contains(text.front()))
        text.prepend(QLatin1Char('\''));
    if (text.contains(QLatin1Char('"')) || text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('\n'))
        || text.contains(QLatin1Char('\r')) || text.startsWith(QLatin1Char('\''))) {
        text.replace(QLatin1Char('"'), QLatin1String("\"\""));
        text = QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

} // namespace

QJsonObject toJson(const ActionRecord& r)
{
    QJsonObject o;
    o.insert(QLatin1String("id"), r.id);
    o.insert(QLatin1String("started"), timeValue(r.started));
    o.insert(QLatin1String("ended"), timeValue(r.ended));
    o.insert(QLatin1String("sandbox"), r.sandbox);
    o.insert(QLatin1String("actor"), Actor::kindName(r.actor.kind));
    o.insert(QLatin1String("actor_name"), r.actor.name);
    o.insert(QLatin1String("action"), actionKindName(r.kind));
    o.insert(QLatin1String("command"), r.command);
    o.insert(QLatin1String("workdir"), r.workdir);
    o.insert(QLatin1String("exit_status"), optionalValue(r.exitStatus));
    o.insert(QLatin1String("signal"), optionalValue(r.signal));
    o.insert(QLatin1String("outcome"), outcomeName(r.outcome));
    o.insert(QLatin1String("error"), r.error);
    o.insert(QLatin1String("duration_ms"), r.durationMs >= 0 ? QJsonValue(r.durationMs) : QJsonValue());
    o.insert(QLatin1String("stdout_bytes"), r.stdoutBytes);
    o.insert(QLatin1String("stderr_bytes"), r.stderrBytes);
    o.insert(QLatin1String("stdout_capped"), r.stdoutCapped);
    o.insert(QLatin1String("stderr_capped"), r.stderrCapped);
    o.insert(QLatin1String("approval"), approvalName(r.approval));
    o.insert(QLatin1String("approver"), r.approver);
    o.insert(QLatin1String("network_address"), r.networkAddress);
    o.insert(QLatin1String("bytes_sent"), r.bytesSent);
    o.insert(QLatin1String("bytes_received"), r.bytesReceived);
    o.insert(QLatin1String("url_before"), r.urlBefore);
    o.insert(QLatin1String("url_after"), r.urlAfter);
    o.insert(QLatin1String("files"), r.artifactsDir);
    o.insert(QLatin1String("file_changes_summary"), r.fileChanges.summary());
    o.insert(QLatin1String("file_changes"), fileChangesReport(r.fileChanges, true));
    return o;
}

QByteArray toJsonLines(const QList<ActionRecord>& records)
{
    QByteArray out;
    for (const ActionRecord& record : records)
        out += QJsonDocument(toJson(record)).toJson(QJsonDocument::Compact) + '\n';
    return out;
}

QByteArray toCsv(const QList<ActionRecord>& records)
{
    QStringList header;
    for (const char* key : kKeys)
        header << QLatin1String(key);
    QString out = header.join(QLatin1Char(',')) + QLatin1String("\r\n");
    for (const ActionRecord& record : records) {
        const QJsonObject o = toJson(record);
        QStringList cells;
        for (const char* key : kKeys)
            cells << csvCell(o.value(QLatin1String(key)));
        out += cells.join(QLatin1Char(',')) + QLatin1String("\r\n");
    }
    return out.toUtf8();
}

} // namespace sbw
