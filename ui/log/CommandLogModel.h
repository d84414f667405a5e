#pragma once

#include "log/CommandLog.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <memory>

namespace sbw {

/// Table model over the command log (CommandLog), newest row first, for the log pane. It shows
/// the rows matching its filter (at most 1000) and follows the log live: a row added or
/// completed anywhere in this process re-reads the rows within 100 ms, one written by another
/// process (`sbw`, `sbw mcp`, `sbw serve`, another window) within CommandLog::kFollowInterval
/// and 100 ms (CommandLog::followOtherWriters()). Rows are read off the
/// GUI thread (Qt's thread pool waits for the log's own thread); the model is reset when they
/// arrive, then refreshed() is emitted. A read that a newer one overtook is dropped. Text from
/// guests and agents is shown with control characters visibly escaped (makeVisible); a
/// command is shown in one line (oneLineVisible(): line breaks as "⏎" and a "(+N lines)"
/// marker), the whole command is the tooltip.
class CommandLogModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Id, Started, Ended, Sandbox, ActorColumn, Action, Command, Workdir, Status, Duration,
                  StdoutBytes, StderrBytes, ApprovalColumn, NetworkAddress, BytesSent, BytesReceived,
                  ColumnCount };
    static constexpr int kRecordRole = Qt::UserRole + 1; ///< the row's ActionRecord

    explicit CommandLogModel(std::shared_ptr<CommandLog> log, QObject* parent = nullptr);

    void setFilter(const LogFilter& filter);
    const LogFilter& filter() const { return m_filter; }
    /// Reads the rows again, in the background; refreshed() follows.
    void refresh();

    const ActionRecord& record(int row) const { return m_rows.at(row); }
    const QList<ActionRecord>& records() const { return m_rows; }
    /// Sandbox names seen in the log so far (for the pane's filter), sorted.
    QStringList sandboxes() const;
    /// Empty, or why the rows could not be read.
    QString lastError() const { return m_error; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    /// The rows of the latest refresh() (or filter) are shown.
    void refreshed();

private:
    void showRows(const Expected<QList<ActionRecord>>& rows);

    std::shared_ptr<CommandLog> m_log;
    LogFilter m_filter;
    QList<ActionRecord> m_rows;
    QSet<QString> m_sandboxes;
    QString m_error;
    QTimer m_refresh;
    quint64 m_reads = 0; ///< refresh() calls so far; only the latest one's rows are shown
};

} // namespace sbw
