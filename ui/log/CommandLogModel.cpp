#include "log/CommandLogModel.h"

#include "base/Async.h"
#include "base/VisibleText.h"

#include <QBrush>
#include <QColor>

namespace sbw {

CommandLogModel::CommandLogModel(std::shared_ptr<CommandLog> log, QObject* parent)
    : QAbstractTableModel(parent), m_log(std::move(log))
{
    m_refresh.setSingleShot(true);
    m_refresh.setInterval(100);
    connect(&m_refresh, &QTimer::timeout, this, &CommandLogModel::refresh);
    const auto refreshSoon = [this] {
        if (!m_refresh.isActive())
            m_refresh.start();
    };
    connect(m_log.get(), &CommandLog::rowChanged, this, refreshSoon, Qt::QueuedConnection);
    connect(m_log.get(), &CommandLog::changedElsewhere, this, refreshSoon, Qt::QueuedConnection);
    m_log->followOtherWriters();
    refresh();
}

void CommandLogModel::setFilter(const LogFilter& filter)
{
    m_filter = filter;
    refresh();
}

void CommandLogModel::refresh()
{
    const quint64 read = ++m_reads;
    runThen(
        this, [log = m_log, filter = m_filter] { return log->rows(filter); },
        [this, read](const Expected<QList<ActionRecord>>& rows) {
            if (read == m_reads)
                showRows(rows);
        });
}

void CommandLogModel::showRows(const Expected<QList<ActionRecord>>& rows)
{
    beginResetModel();
    if (rows) {
        m_rows = std::move(rows.value());
        m_error.clear();
        for (const ActionRecord& record : m_rows)
            m_sandboxes.insert(record.sandbox);
    } else {
        m_rows.clear();
        m_error = rows.error().message;
    }
    endResetModel();
    Q_EMIT refreshed();
}

QStringList CommandLogModel::sandboxes() const
{
    QStringList names(m_sandboxes.cbegin(), m_sandboxes.cend());
    names.sort();
    return names;
}

int CommandLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CommandLogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString bytesText(qint64 bytes, bool capped)
{
    return capped ? QStringLiteral("%1 (capped)").arg(bytes) : QString::number(bytes);
}

} // namespace

QVariant CommandLogModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const ActionRecord& r = m_rows.at(index.row());
    if (role == kRecordRole)
        return QVariant::fromValue(r);
    if (role == Qt::ToolTipRole && index.column() == Command)
        return makeVisible(r.command);
    if (role == Qt::ForegroundRole && index.column() == Status) {
        if (r.outcome == Outcome::Failed || r.outcome == Outcome::Error || r.outcome == Outcome::Denied
            || r.outcome == Outcome::TimedOut || r.outcome == Outcome::Interrupted)
            return QBrush(QColor(0xb0, 0x20, 0x20));
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case Id:
        case Duration:
        case StdoutBytes:
        case StderrBytes:
        case BytesSent:
        case BytesReceived:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Id:
        return r.id;
    case Started:
        return r.started.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
    case Ended:
        return r.ended.isValid() ? r.ended.toString(QStringLiteral("HH:mm:ss.zzz")) : QString();
    case Sandbox:
        return oneLineVisible(r.sandbox);
    case ActorColumn:
        return oneLineVisible(r.actor.display());
    case Action:
        return actionKindName(r.kind);
    case Command:
        return oneLineVisible(r.command);
    case Workdir:
        return oneLineVisible(r.workdir);
    case Status:
        return r.statusText();
    case Duration:
        return r.durationMs >= 0 ? QVariant(r.durationMs) : QVariant();
    case StdoutBytes:
        return bytesText(r.stdoutBytes, r.stdoutCapped);
    case StderrBytes:
        return bytesText(r.stderrBytes, r.stderrCapped);
    case ApprovalColumn:
        return oneLineVisible(r.approvalText());
    case NetworkAddress:
        return r.networkAddress;
    case BytesSent:
        return r.kind == ActionKind::Network ? QVariant(r.bytesSent) : QVariant();
    case BytesReceived:
        return r.kind == ActionKind::Network ? QVariant(r.bytesReceived) : QVariant();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant CommandLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Id: return tr("Id");
    case Started: return tr("Started (UTC)");
    case Ended: return tr("Ended");
    case Sandbox: return tr("Sandbox");
    case ActorColumn: return tr("Actor");
    case Action: return tr("Action");
    case Command: return tr("Command");
    case Workdir: return tr("Folder");
    case Status: return tr("Status");
    case Duration: return tr("Duration (ms)");
    case StdoutBytes: return tr("Stdout (bytes)");
    case StderrBytes: return tr("Stderr (bytes)");
    case ApprovalColumn: return tr("Approval");
    case NetworkAddress: return tr("Address");
    case BytesSent: return tr("Sent (bytes)");
    case BytesReceived: return tr("Received (bytes)");
    case ColumnCount: break;
    }
    return {};
}

} // namespace sbw
