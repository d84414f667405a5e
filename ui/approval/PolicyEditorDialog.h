#pragma once

#include "approval/Policy.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace sbw {

/// Edits the approval policy: the default rules and each workspace's rules, one table per scope
/// (chosen above the table) with a row per rule: kinds (comma-separated kind names, empty for
/// every kind), pattern (fnmatch glob) and decision. Rules can be added, removed and moved up
/// or down (order matters: the first match decides). Below the table, "Pause the workspace
/// while an action waits" is the scope's pauseWhileWaiting: for the default scope on or off;
/// for a workspace on, off or partly checked (no own setting: the default's). Save writes the
/// policy file and accepts; a bad kind name is reported under the table and nothing is written.
class PolicyEditorDialog : public QDialog
{
    Q_OBJECT

public:
    /// `workspaces`: names offered as scopes besides those that already have rules.
    PolicyEditorDialog(Policy policy, QString path, const QStringList& workspaces, QWidget* parent = nullptr);

    /// The policy as edited so far. Errors: a kind name that is not one (the message names the
    /// scope and row).
    Expected<Policy> policy();
    /// Writes policy() to the file. Errors: as policy(), or the file cannot be written.
    Expected<void> save();

    QComboBox* scope() const { return m_scope; }
    QTableWidget* table() const { return m_table; }
    QCheckBox* pauseBox() const { return m_pause; }

Q_SIGNALS:
    void saved(const sbw::Policy& policy);

private:
    enum Column { Kinds, Pattern, Ports, Decision };

    void loadScope();
    Expected<void> storeScope();
    void addRow(const PolicyRule& rule);
    void moveRow(int delta);
    QString scopeName() const; ///< empty for the default rules

    Policy m_policy;
    QString m_path;
    QComboBox* m_scope;
    QTableWidget* m_table;
    QCheckBox* m_pause;
    QLabel* m_error;
    QString m_shownScope; ///< the scope the table holds
};

} // namespace sbw
