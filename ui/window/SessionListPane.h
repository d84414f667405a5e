#pragma once

#include <QWidget>

class QTreeView;

namespace sbw {

class SessionListModel;
class WorkspaceActions;

/// The session list: every sandbox of the workbench (SessionListModel) with its state badge
/// and uptime, a button for a new workspace, and the workspace actions in a context menu.
/// Selecting a row emits runSelected() or workspaceSelected().
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

private:
    void onCurrentChanged();
    void showContextMenu(const QPoint& position);

    SessionListModel* m_model;
    WorkspaceActions* m_actions;
    QTreeView* m_view;
    QString m_selected; ///< workspace name; kept across model resets
};

} // namespace sbw
