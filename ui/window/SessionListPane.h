#pragma once

#include <QWidget>

class QTreeView;

namespace sbw {

class SessionListModel;
class WorkspaceActions;

/// The session list: every sandbox of the workbench (SessionListModel) with its state badge
/// and uptime, a button for a new workspace, and the workspace actions in a context menu.
/// Selecting a row emits runSelected() or workspaceSelected().
///
/// Columns: the name keeps the width of the longest name (up to 40 characters) and takes the
/// room left over; when the list is too narrow for all, Kind, Uptime and State give way (hidden)
/// in that order before the name is elided in the middle. Uptime is as wide as its widest text, so
/// the columns never move as it grows. The name's tooltip is the whole name.
class SessionListPane : public QWidget
{
    Q_OBJECT

public:
    SessionListPane(SessionListModel* model, WorkspaceActions* actions, QWidget* parent = nullptr);

    QTreeView* view() const { return m_view; }
    /// Selects the row of workspace `name` (the run row when empty).
    void select(const QString& name);

Q_SIGNALS:
    void runSelected();
    void workspaceSelected(const QString& name);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Sets the columns' widths for the view's width (see the class comment).
    void fitColumns();
    /// The width `column` needs for its header and contents.
    int columnWidth(int column) const;
    void onCurrentChanged();
    void showContextMenu(const QPoint& position);

    SessionListModel* m_model;
    WorkspaceActions* m_actions;
    QTreeView* m_view;
    QString m_selected; ///< workspace name; kept across model resets
};

} // namespace sbw
