#include "window/SessionListModel.h"

#include "widgets/StateBadge.h"
#include "workspace/WorkspaceManager.h"

#include <QFont>

namespace sbw {
namespace {

bool isUp(WorkspaceState state)
{
    return state == WorkspaceState::Running || state == WorkspaceState::Starting
           || state == WorkspaceState::Paused;
}

} // namespace

SessionListModel::SessionListModel(WorkspaceManager* manager, QObject* parent)
    : QAbstractTableModel(parent), m_manager(manager)
{
    connect(m_manager, &WorkspaceManager::workspacesChanged, this, &SessionListModel::reload);
    connect(m_manager, &WorkspaceManager::stateChanged, this, &SessionListModel::onStateChanged);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &SessionListModel::tick);
    m_tick.start();
    reload();
}

void SessionListModel::reload()
{
    const auto entries = m_manager->workspaces();
    std::map<QString, Row> previous;
    for (const Row& row : std::as_const(m_rows))
        previous[row.name] = row;
    const bool firstLoad = m_rows.isEmpty();
    beginResetModel();
    m_rows.clear();
    for (const auto& entry : entries) {
        Row row;
        row.name = entry.record.name;
        row.state = entry.state;
        if (auto it = previous.find(row.name); it != previous.end() && isUp(row.state)) {
            row.runningSince = it->second.runningSince;
            row.sinceIsLowerBound = it->second.sinceIsLowerBound;
        }
        if (isUp(row.state) && !row.runningSince.isValid()) {
            row.runningSince = QDateTime::currentDateTimeUtc();
            // Found running, not seen starting: it has been up at least this long.
            row.sinceIsLowerBound = firstLoad || !previous.count(row.name);
        }
        m_rows.append(row);
    }
    endResetModel();
}

void SessionListModel::onStateChanged(const QString& name, WorkspaceState state)
{
    const int modelRow = rowOf(name);
    if (modelRow < 0) {
        reload();
        return;
    }
    Row& row = m_rows[modelRow - 1];
    const bool wasUp = isUp(row.state);
    row.state = state;
    if (isUp(state) && !wasUp) {
        row.runningSince = QDateTime::currentDateTimeUtc();
        row.sinceIsLowerBound = false;
    } else if (!isUp(state)) {
        row.runningSince = {};
    }
    Q_EMIT dataChanged(index(modelRow, 0), index(modelRow, ColumnCount - 1));
}

void SessionListModel::tick()
{
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, UptimeColumn), index(rowCount() - 1, UptimeColumn),
                           {Qt::DisplayRole});
}

void SessionListModel::setRunState(bool active, const QString& domainName, const QString& stateText)
{
    if (active && !m_runActive)
        m_runSince = QDateTime::currentDateTimeUtc();
    m_runActive = active;
    m_runDomain = domainName;
    m_runState = stateText;
    Q_EMIT dataChanged(index(kRunRow, 0), index(kRunRow, ColumnCount - 1));
}

int SessionListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size()) + 1;
}

int SessionListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString SessionListModel::workspaceName(int row) const
{
    return row >= 1 && row <= m_rows.size() ? m_rows[row - 1].name : QString();
}

int SessionListModel::rowOf(const QString& name) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].name == name)
            return int(i) + 1;
    return -1;
}

WorkspaceState SessionListModel::workspaceState(int row) const
{
    return row >= 1 && row <= m_rows.size() ? m_rows[row - 1].state : WorkspaceState::Unknown;
}

QString SessionListModel::uptimeText(qint64 seconds)
{
    if (seconds < 60)
        return tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
    if (seconds < 86400)
        return tr("%1 h %2 min").arg(seconds / 3600).arg(seconds / 60 % 60);
    return tr("%1 d %2 h").arg(seconds / 86400).arg(seconds / 3600 % 24);
}

QVariant SessionListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (index.row() == kRunRow) {
        switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
            case NameColumn:
                return m_runActive && !m_runDomain.isEmpty() ? m_runDomain : tr("Ephemeral run");
            case KindColumn:
                return tr("run");
            case StateColumn:
                return m_runActive ? m_runState : tr("idle");
            case UptimeColumn:
                return m_runActive ? uptimeText(m_runSince.secsTo(now)) : QString();
            }
            break;
        case Qt::DecorationRole:
            if (index.column() == StateColumn)
                return stateBadge(m_runActive ? WorkspaceState::Running : WorkspaceState::Stopped);
            break;
        case Qt::ToolTipRole:
            return tr("Scripts run here in a fresh microVM that is destroyed afterwards");
        }
        return {};
    }
    const Row& row = m_rows[index.row() - 1];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return row.name;
        case KindColumn:
            return tr("workspace");
        case StateColumn:
            return workspaceStateName(row.state);
        case UptimeColumn:
            if (!row.runningSince.isValid())
                return QString();
            return (row.sinceIsLowerBound ? QStringLiteral("≥ ") : QString())
                   + uptimeText(row.runningSince.secsTo(now));
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == StateColumn)
            return stateBadge(row.state);
        break;
    case Qt::ToolTipRole:
        if (index.column() == UptimeColumn && row.sinceIsLowerBound)
            return tr("Already running when the workbench opened: up at least this long");
        break;
    }
    return {};
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case KindColumn:
        return tr("Kind");
    case StateColumn:
        return tr("State");
    case UptimeColumn:
        return tr("Uptime");
    }
    return {};
}

} // namespace sbw
