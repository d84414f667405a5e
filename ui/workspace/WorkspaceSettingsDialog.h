#pragma once

#include "workspace/WorkspaceEnvironment.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QTableWidget;

namespace sbw {

/// Edits a workspace's environment variables (`sbw ws env`): one row per variable with its
/// name, value and whether it is secret (a secret value is typed and shown as dots here and
/// masked in the command log). Add and Remove change rows; OK is enabled while every name is
/// valid and unique.
class WorkspaceSettingsDialog : public QDialog
{
    Q_OBJECT

public:
    WorkspaceSettingsDialog(const QString& workspace, const WorkspaceEnvironment& environment,
                            QWidget* parent = nullptr);

    /// The variables as edited, in row order.
    WorkspaceEnvironment environment() const;
    /// Appends a row (what Add does) and returns its index.
    int addVariable(const QString& name, const QString& value, bool secret);
    QTableWidget* table() const { return m_table; }

private:
    void validate();

    QTableWidget* m_table;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
};

} // namespace sbw
