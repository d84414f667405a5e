#include "run/RunHostMenu.h"

#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "run/RunPane.h"
#include "workbench/Host.h"
#include "workbench/Workbench.h"

#include <QActionGroup>

namespace sbw {

RunHostMenu::RunHostMenu(Workbench* workbench, RunPane* runPane, QWidget* parent)
    : QMenu(tr("Run &On"), parent), m_runPane(runPane), m_group(new QActionGroup(this)),
      m_firstHost(workbench->hosts().first())
{
    setObjectName(QStringLiteral("runHostMenu"));
    for (Host* host : workbench->hosts())
        add(host);
    connect(workbench, &Workbench::hostAdded, this, &RunHostMenu::add);
    choose(workbench->hosts().first());
}

void RunHostMenu::add(Host* host)
{
    QAction* action = addAction(hostDisplayName(host->uri()));
    action->setCheckable(true);
    action->setToolTip(host->uri());
    action->setData(QVariant::fromValue(static_cast<QObject*>(host)));
    m_group->addAction(action);
    connect(action, &QAction::triggered, this, [this, host] { choose(host); });
}

Host* RunHostMenu::host() const
{
    QAction* checked = m_group->checkedAction();
    return checked ? qobject_cast<Host*>(checked->data().value<QObject*>()) : nullptr;
}

void RunHostMenu::choose(Host* host)
{
    for (QAction* action : m_group->actions())
        if (action->data().value<QObject*>() == host)
            action->setChecked(true);
    m_runPane->setHost(host->connection(), host->sandboxPool(),
                       host == m_firstHost ? QString() : hostDisplayName(host->uri()));
}

} // namespace sbw
