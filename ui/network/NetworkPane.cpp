#include "network/NetworkPane.h"

#include "base/VisibleText.h"
#include "egress/EgressRequestLine.h"
#include "log/CommandLogModel.h"
#include "log/CommandLogPane.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace sbw {
namespace {

QString networkNote(WorkspaceNetwork network)
{
    switch (network) {
    case WorkspaceNetwork::Allowlist:
        return NetworkPane::tr("Network: allowlist. Programs in the guest reach hosts only through the "
                               "workbench's proxy; each connection is judged by the policy and shown here.");
    case WorkspaceNetwork::Nat:
        return NetworkPane::tr("Network: nat. The guest reaches the network directly: its connections do not "
                               "pass the proxy and are not listed here.");
    case WorkspaceNetwork::None:
        break;
    }
    return NetworkPane::tr("Network: none. The guest has no network; no connection is made.");
}

} // namespace

NetworkPane::NetworkPane(std::shared_ptr<CommandLog> log, const QString& workspace, WorkspaceNetwork network,
                         ApprovalQueuePane::DestinationRuleWriter writer, QWidget* parent)
    : QWidget(parent), m_workspace(workspace), m_writer(std::move(writer)),
      m_log(new CommandLogPane(std::move(log), this)), m_allow(new QPushButton(tr("Allow Always"), this)),
      m_deny(new QPushButton(tr("Deny Always"), this)), m_status(new QLabel(this))
{
    m_log->setScope(workspace, ActionKind::Network);
    // What a glance needs, so that the request line keeps its room in a tab beside the docks;
    // Actor, Address, Duration and Sent are in the header's menu, every field in the detail.
    m_log->showColumns({CommandLogModel::Started, CommandLogModel::Status, CommandLogModel::ApprovalColumn,
                        CommandLogModel::BytesReceived});
    m_allow->setToolTip(tr("Allow the selected row's host and port from now on (a rule in this workspace's policy)"));
    m_deny->setToolTip(tr("Deny the selected row's host and port from now on (a rule in this workspace's policy)"));
    auto* note = new QLabel(networkNote(network), this);
    note->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_deny);
    buttons->addWidget(m_allow);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(m_log, 1);
    layout->addLayout(buttons);

    connect(m_allow, &QPushButton::clicked, this, &NetworkPane::allowSelectedAlways);
    connect(m_deny, &QPushButton::clicked, this, &NetworkPane::denySelectedAlways);
    connect(m_log->table()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &NetworkPane::updateButtons);
    connect(m_log->model(), &QAbstractItemModel::modelReset, this, &NetworkPane::updateButtons);
    updateButtons();
}

std::optional<NetworkDestination> NetworkPane::selectedDestination() const
{
    const QModelIndex current = m_log->table()->currentIndex();
    if (!current.isValid())
        return std::nullopt;
    return loggedDestination(m_log->model()->record(current.row()));
}

void NetworkPane::updateButtons()
{
    const bool destination = m_writer && selectedDestination().has_value();
    m_allow->setEnabled(destination);
    m_deny->setEnabled(destination);
}

void NetworkPane::setRuleForSelected(PolicyDecision decision)
{
    const auto destination = selectedDestination();
    if (!destination || !m_writer)
        return;
    const QString rule = tr("%1 %2 for workspace '%3'")
                             .arg(policyDecisionName(decision), destination->display(), makeVisible(m_workspace));
    if (auto written = m_writer(m_workspace, *destination, decision); !written)
        m_status->setText(tr("Not added: %1: %2").arg(rule, written.error().message));
    else
        m_status->setText(tr("Rule added: %1").arg(rule));
}

} // namespace sbw
