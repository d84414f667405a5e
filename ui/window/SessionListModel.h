#pragma once

#include "workspace/WorkspaceState.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QTimer>

#include <map>

namespace sbw {

class WorkspaceManager;

/// Every sandbox the workbench owns, one row each: first the ephemeral run (the run pane; its
/// microVM's domain name while a run is in progress), then the workspaces of a
/// WorkspaceManager in name order. Columns: name, kind, state (with a colour badge), uptime.
///
/// Uptime counts from when this window saw the sandbox start; a workspace that was already
/// running when the workbench opened shows "≥ N" (it has run at least that long). The column
/// is refreshed once a second.
class SessionListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        NameColumn,
        KindColumn,
        StateColumn,
        UptimeColumn,
        ColumnCount
    };
    /// Row of the ephemeral run pane.
    static constexpr int kRunRow = 0;

    explicit SessionListModel(WorkspaceManager* manager, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    /// The workspace of `row`; empty for the run row or an invalid row.
    QString workspaceName(int row) const;
    /// The row of workspace `name`, or -1.
    int rowOf(const QString& name) const;
    WorkspaceState workspaceState(int row) const;

    /// The ephemeral run in progress: its domain name (empty before the VM exists) and a short
    /// state text ("booting", "running", …); `active` false when no run is in progress.
    void setRunState(bool active, const QString& domainName, const QString& stateText);

    /// "12 s", "3 min 4 s", "2 h 5 min", "3 d 4 h".
    static QString uptimeText(qint64 seconds);

private:
    void reload();
    void onStateChanged(const QString& name, WorkspaceState state);
    void tick();

    struct Row
    {
        QString name;
        WorkspaceState state = WorkspaceState::Unknown;
        QDateTime runningSince; ///< invalid when not running
        bool sinceIsLowerBound = false;
    };

    WorkspaceManager* m_manager;
    QList<Row> m_rows; ///< workspaces; model row = index + 1
    bool m_runActive = false;
    QString m_runDomain;
    QString m_runState;
    QDateTime m_runSince;
    QTimer m_tick;
};

} // namespace sbw
