#include "window/SessionListModel.h"

#include "base/Async.h"
#include "widgets/StateBadge.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspaceUptime.h"

#include <QFont>

namespace sbw {
namespace {

bool isUp(WorkspaceState state)
{
    return state == WorkspaceState::Running || state == WorkspaceState::Starting ||
           state == WorkspaceState::Paused;
}

} // namespace

QString SessionListModel::uptimeTip(UptimeSource source, const QString& guestError)
{
    switch (source) {
    case UptimeSource::Guest:
        return tr("The guest's own uptime (its /proc/uptime)");
    case UptimeSource::SeenStarting:
        return guestError.isEmpty()
                   ? tr("Since the workbench saw it start; the guest is being asked")
                   : tr("Since the workbench saw it start; the guest could not be asked: %1")
                         .arg(guestError);
    case UptimeSource::LowerBound:
        break;
    }
    return guestError.isEmpty()
               ? tr("Already running when the workbench found it: up at least this long; the "
                    "guest is being asked")
               : tr("Already running when the workbench found it: up at least this long; the "
                    "guest could not be asked: %1")
                     .arg(guestError);
}

SessionListModel::SessionListModel(WorkspaceManager* manager, QObject* parent)
    : QAbstractTableModel(parent), m_manager(manager)
{
    connect(m_manager, &WorkspaceManager::workspacesChanged, this, &SessionListModel::reload);
    connect(m_manager, &WorkspaceManager::stateChanged, this, &SessionListModel::onStateChanged);
    connect(m_manager, &WorkspaceManager::domainEvent, this, &SessionListModel::onDomainEvent);
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &SessionListModel::tick);
    m_tick.start();
    m_ask.setSingleShot(true);
    m_ask.setInterval(0);
    connect(&m_ask, &QTimer::timeout, this, &SessionListModel::askMarkedGuests);
    reload();
}

void SessionListModel::reload()
{
    const auto entries = m_manager->workspaces();
    std::map<QString, Row> previous;
    for (const Row& row : std::as_const(m_rows))
        previous[row.name] = row;
    beginResetModel();
    m_rows.clear();
    for (const auto& entry : entries) {
        Row row;
        row.name = entry.name;
        const auto known = previous.find(row.name);
        if (known != previous.end())
            row = known->second;
        row.origin = entry.record.origin;
        const WorkspaceState was = row.state;
        if (known == previous.end() && isUp(entry.state)) {
            // Found up, not seen starting: it has been up at least this long.
            row.state = entry.state;
            row.upSince = Clock::now();
            row.source = UptimeSource::LowerBound;
        } else {
            enterState(row, entry.state);
        }
        m_rows.append(row);
        if (row.state == WorkspaceState::Running && was != WorkspaceState::Running)
            askGuestSoon(m_rows.last());
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
    const WorkspaceState was = row.state;
    enterState(row, state);
    if (state == WorkspaceState::Running && was != WorkspaceState::Running)
        askGuestSoon(row);
    Q_EMIT dataChanged(index(modelRow, 0), index(modelRow, ColumnCount - 1));
}

void SessionListModel::enterState(Row& row, WorkspaceState state)
{
    const WorkspaceState was = row.state;
    row.state = state;
    if (!isUp(state)) {
        row.upSince.reset();
        row.pausedAt.reset();
    } else if (!isUp(was)) {
        row.upSince = Clock::now();
        row.pausedAt.reset();
        row.source = UptimeSource::SeenStarting;
    } else if (state == WorkspaceState::Paused && was != WorkspaceState::Paused) {
        row.pausedAt = uptimeOf(row);
    } else if (state != WorkspaceState::Paused && row.pausedAt) {
        row.upSince = Clock::now() - *row.pausedAt;
        row.pausedAt.reset();
    }
}

void SessionListModel::askGuestSoon(Row& row)
{
    row.askSoon = true;
    m_ask.start();
}

void SessionListModel::askMarkedGuests()
{
    for (Row& row : m_rows) {
        if (row.askSoon && row.state == WorkspaceState::Running)
            askGuest(row);
        row.askSoon = false;
    }
}

void SessionListModel::askGuest(Row& row)
{
    const std::shared_ptr<Workspace> workspace = m_manager->workspace(row.name);
    if (!workspace)
        return;
    if (row.asking) {
        row.askAgain = true;
        return;
    }
    row.asking = true;
    runThen(
        &m_asks, this, [workspace] { return readWorkspaceBoot(*workspace); },
        [this, name = row.name](const Expected<Clock::time_point>& boot) {
            onGuestBoot(name, boot);
        });
}

void SessionListModel::askUptimeAgain(const QString& name)
{
    onDomainEvent(name);
}

void SessionListModel::onDomainEvent(const QString& name)
{
    const int modelRow = rowOf(name);
    if (modelRow >= 0 && m_rows[modelRow - 1].state == WorkspaceState::Running)
        askGuestSoon(m_rows[modelRow - 1]);
}

void SessionListModel::onGuestBoot(const QString& name, const Expected<Clock::time_point>& boot)
{
    const int modelRow = rowOf(name);
    if (modelRow < 0)
        return;
    Row& row = m_rows[modelRow - 1];
    row.asking = false;
    if (row.askAgain) {
        row.askAgain = false;
        if (row.state == WorkspaceState::Running)
            askGuest(row);
        return;
    }
    // The guest is no longer running: its clock stopped (a later Running asks again).
    if (row.state != WorkspaceState::Running)
        return;
    if (boot) {
        row.upSince = boot.value();
        row.source = UptimeSource::Guest;
        row.guestError.clear();
    } else {
        row.guestError = boot.error().message;
    }
    Q_EMIT dataChanged(index(modelRow, UptimeColumn), index(modelRow, UptimeColumn));
}

std::optional<std::chrono::milliseconds> SessionListModel::uptimeOf(const Row& row)
{
    if (row.pausedAt)
        return row.pausedAt;
    if (!row.upSince)
        return std::nullopt;
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - *row.upSince);
}

void SessionListModel::tick()
{
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, UptimeColumn), index(rowCount() - 1, UptimeColumn),
                           {Qt::DisplayRole, kUptimeMsRole});
}

void SessionListModel::setRunState(bool active, const QString& domainName, const QString& stateText)
{
    if (active && !m_runActive)
        m_runSince = Clock::now();
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

QStringList SessionListModel::uptimeTextWidthSamples()
{
    // The widest of each form, with the lower-bound mark; 8 is among the widest digits.
    const QString mark = QStringLiteral("≥ ");
    return {mark + uptimeText(48 * 60 + 58), mark + uptimeText(18 * 3600 + 58 * 60),
            mark + uptimeText(88 * 86400 + 18 * 3600)};
}

QVariant SessionListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
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
                return m_runActive && m_runSince
                           ? uptimeText(std::chrono::duration_cast<std::chrono::seconds>(
                                            Clock::now() - *m_runSince)
                                            .count())
                           : QString();
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
    const std::optional<std::chrono::milliseconds> uptime = uptimeOf(row);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return row.name;
        case KindColumn:
            return row.origin.isEmpty() ? tr("workspace") : tr("fork");
        case StateColumn:
            return workspaceStateName(row.state);
        case UptimeColumn:
            if (!uptime)
                return QString();
            return (row.source == UptimeSource::LowerBound ? QStringLiteral("≥ ") : QString()) +
                   uptimeText(std::chrono::duration_cast<std::chrono::seconds>(*uptime).count());
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == StateColumn)
            return stateBadge(row.state);
        break;
    case Qt::ToolTipRole:
        if (index.column() == NameColumn)
            return row.origin.isEmpty() ? row.name : row.name + QLatin1Char('\n') + row.origin.describe();
        if (index.column() == KindColumn && !row.origin.isEmpty())
            return tr("%1, forked %2 UTC")
                .arg(row.origin.describe(), row.origin.forked.toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        if (index.column() == UptimeColumn && uptime)
            return uptimeTip(row.source, row.guestError);
        break;
    case kOriginRole:
        if (index.column() == NameColumn && !row.origin.isEmpty())
            return row.origin.describe();
        break;
    case kUptimeMsRole:
        if (index.column() == UptimeColumn && uptime)
            return qint64(uptime->count());
        break;
    case kUptimeFromGuestRole:
        if (index.column() == UptimeColumn)
            return row.source == UptimeSource::Guest && uptime.has_value();
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
