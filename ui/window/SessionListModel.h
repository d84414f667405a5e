#pragma once

#include "base/Expected.h"
#include "workspace/WorkspaceRecord.h"
#include "workspace/WorkspaceState.h"

#include <QAbstractTableModel>
#include <QThreadPool>
#include <QTimer>
#include <chrono>
#include <map>
#include <optional>

namespace sbw {

class WorkspaceManager;

/// Every sandbox the workbench owns, one row each: first the ephemeral run (the run pane; its
/// microVM's domain name while a run is in progress), then the workspaces of a
/// WorkspaceManager in name order. Columns: name, kind, state (with a colour badge), uptime.
/// A fork's kind is "fork"; its origin ("fork of web", WorkspaceOrigin::describe(), from its
/// domain's metadata) is kOriginRole of its name, which SessionNameDelegate shows under the
/// name, and the kind's tooltip adds when it was forked.
///
/// A workspace's uptime is its guest's own (/proc/uptime, readWorkspaceBoot()), asked each
/// time it comes to Running (when the window opens or finds it, after start, resume and wake)
/// and after any domain event while it runs (a revert turns the guest's clock back).
/// The count goes on on this host's monotonic clock and stands still while the guest is paused
/// (the guest's clock does too). Until the guest has answered, a workspace seen starting counts
/// from then, and one found running shows "≥ N" (up at least that long; the tooltip says why).
/// The run row counts from when this window saw its run start. The column is refreshed once a
/// second; its texts are at most uptimeTextWidthSample() wide. The name's tooltip is the whole
/// name (and a fork's origin under it).
class SessionListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    /// Qt::UserRole on the uptime column: the uptime in ms (qint64), or nothing.
    static constexpr int kUptimeMsRole = Qt::UserRole;
    /// Qt::UserRole + 1 on the uptime column: true when the uptime is the guest's own.
    static constexpr int kUptimeFromGuestRole = Qt::UserRole + 1;
    /// Qt::UserRole + 2 on the name column: a fork's origin, "fork of web"; nothing otherwise.
    static constexpr int kOriginRole = Qt::UserRole + 2;

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

    /// Asks the guest of workspace `name` for its uptime again if it runs: after an operation
    /// that turned its clock back (a revert) without a state change or domain event.
    void askUptimeAgain(const QString& name);

    /// "12 s", "3 min 4 s", "2 h 5 min", "3 d 4 h".
    static QString uptimeText(qint64 seconds);
    /// Texts as wide as the widest uptime texts, for a column that never has to grow.
    static QStringList uptimeTextWidthSamples();

private:
    using Clock = std::chrono::steady_clock;

    /// Where a row's uptime comes from.
    enum class UptimeSource
    {
        Guest,        ///< the guest's /proc/uptime
        SeenStarting, ///< this window saw the domain start
        LowerBound    ///< found running; up at least since it was found
    };

    struct Row
    {
        QString name;
        WorkspaceOrigin origin; ///< empty unless the workspace is a fork
        WorkspaceState state = WorkspaceState::Unknown;
        std::optional<Clock::time_point>
            upSince; ///< the guest's boot on this host's clock; unset when not up
        std::optional<std::chrono::milliseconds> pausedAt; ///< the uptime at which it paused
        UptimeSource source = UptimeSource::LowerBound;
        QString guestError;    ///< why the guest could not be asked
        bool askSoon = false;  ///< to be asked once the events of this turn are handled
        bool asking = false;   ///< a question to the guest is in flight
        bool askAgain = false; ///< something happened since it was asked: its answer is stale
    };

    void reload();
    void onStateChanged(const QString& name, WorkspaceState state);
    void tick();
    /// Moves `row` to `state`: its uptime starts, stands still (paused), goes on or ends.
    static void enterState(Row& row, WorkspaceState state);
    /// Asks the guest of `row` once the state changes and events of this turn are handled (a
    /// start brings both), by askGuest().
    void askGuestSoon(Row& row);
    void askMarkedGuests();
    /// Reads the guest's uptime of `row` in the background (after the one in flight, if any).
    void askGuest(Row& row);
    void onGuestBoot(const QString& name, const Expected<Clock::time_point>& boot);
    void onDomainEvent(const QString& name);
    static std::optional<std::chrono::milliseconds> uptimeOf(const Row& row);
    static QString uptimeTip(UptimeSource source, const QString& guestError);

    WorkspaceManager* m_manager;
    QList<Row> m_rows; ///< workspaces; model row = index + 1
    bool m_runActive = false;
    QString m_runDomain;
    QString m_runState;
    std::optional<Clock::time_point> m_runSince;
    QTimer m_tick;
    QTimer m_ask; ///< single shot, 0 ms: askMarkedGuests()
    /// The guests' uptime reads. Last member: destroyed (and waited for) first, so no read
    /// outlives the model and, with it, the window that shows it and the workspaces' connection.
    QThreadPool m_asks;
};

} // namespace sbw
