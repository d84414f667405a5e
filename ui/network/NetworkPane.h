#pragma once

#include "approval/ApprovalQueuePane.h"
#include "workspace/WorkspaceRecord.h"

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;

namespace sbw {

class CommandLog;
class CommandLogPane;

/// A workspace's Network tab: every connection a program in its guest asked the egress proxy
/// for (command-log rows of action network), live and newest first, with the log's filters
/// (actor, status, text) and export; each row with its request line, decision and approver,
/// server address, bytes each way, duration and error. Allow Always and Deny Always set a rule
/// for the selected row's host and port in the workspace's policy (PolicyGate::
/// setDestinationRule(): connections waiting for that destination are decided with it).
/// A workspace whose network is not the allowlist says so: its traffic does not pass the proxy.
class NetworkPane : public QWidget
{
    Q_OBJECT

public:
    NetworkPane(std::shared_ptr<CommandLog> log, const QString& workspace, WorkspaceNetwork network,
                ApprovalQueuePane::DestinationRuleWriter writer, QWidget* parent = nullptr);

    CommandLogPane* log() const { return m_log; }
    QPushButton* allowAlwaysButton() const { return m_allow; }
    QPushButton* denyAlwaysButton() const { return m_deny; }
    /// What the last Allow Always or Deny Always did, or why it could not.
    QLabel* statusLabel() const { return m_status; }

public Q_SLOTS:
    void allowSelectedAlways() { setRuleForSelected(PolicyDecision::Allow); }
    void denySelectedAlways() { setRuleForSelected(PolicyDecision::Deny); }

private:
    void setRuleForSelected(PolicyDecision decision);
    void updateButtons();
    /// The selected row's destination; nullopt without a selection or a valid host.
    std::optional<NetworkDestination> selectedDestination() const;

    QString m_workspace;
    ApprovalQueuePane::DestinationRuleWriter m_writer;
    CommandLogPane* m_log;
    QPushButton* m_allow;
    QPushButton* m_deny;
    QLabel* m_status;
};

} // namespace sbw
