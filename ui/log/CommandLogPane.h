#pragma once

#include "log/CommandLog.h"
#include "widgets/RowTableView.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace sbw {

class CommandLogModel;

/// The command log pane: every action on every sandbox, newest first and live, with filters
/// (sandbox, actor, status, text), a detail view of the selected row (whole command, stdout,
/// stderr) and export of the filtered rows as JSON Lines or CSV. Text from guests and agents is
/// shown literally: escape sequences and control characters appear escaped, never act. Rows and
/// output are read off the GUI thread (CommandLogModel; the detail view's output arrives after
/// its header, detailShown() then).
class CommandLogPane : public QWidget
{
    Q_OBJECT

public:
    enum class Format { JsonLines, Csv };

    explicit CommandLogPane(std::shared_ptr<CommandLog> log, QWidget* parent = nullptr);

    CommandLogModel* model() const { return m_model; }
    RowTableView* table() const { return m_table; }
    QPlainTextEdit* detail() const { return m_detail; }
    QLineEdit* searchField() const { return m_search; }
    /// About 22 text lines high: several rows and the start of the detail when the dock opens.
    QSize sizeHint() const override;

    /// Shows only the rows of `kind` on `sandbox` (a workspace's Network tab): the sandbox filter
    /// is hidden; the other filters stay.
    void setScope(const QString& sandbox, ActionKind kind);
    /// Shows `columns` (and the command, always), hides the others; the header's context menu
    /// still shows any of them.
    void showColumns(const QList<int>& columns);

    /// Writes the rows matching the current filter (up to 100,000) to `path`. Errors: the file
    /// cannot be written (the message names it).
    Expected<void> exportTo(const QString& path, Format format) const;

Q_SIGNALS:
    /// The detail view shows the selected row completely, its output included.
    void detailShown();

private:
    void applyFilter();
    /// Every column but the command as wide as its texts, up to a cap; the command stretches.
    void fitColumns();
    void showDetail();
    /// The stdout and stderr sections of the detail view for `r`.
    QString outputSections(const ActionRecord& r, const Expected<QByteArray>& out,
                           const Expected<QByteArray>& err) const;
    void chooseExport(Format format);
    void updateSandboxChoices();
    /// After a reset: selects the row that was selected before it, if it is still there.
    void reselect();

    std::shared_ptr<CommandLog> m_log;
    CommandLogModel* m_model;
    RowTableView* m_table;
    QPlainTextEdit* m_detail;
    QLineEdit* m_search;
    QComboBox* m_sandbox;
    QComboBox* m_actor;
    QComboBox* m_outcome;
    QLabel* m_status;
    std::optional<ActionKind> m_scopeKind; ///< setScope()
    qint64 m_selectedId = 0;                ///< the selected row's id across a model reset
    bool m_reselecting = false;             ///< reselect() runs: the detail stays as it is
    quint64 m_detailReads = 0; ///< selections so far; only the latest one's output is shown
};

} // namespace sbw
