#include "window/HostList.h"

#include "base/VisibleText.h"
#include "hypervisor/HypervisorConnection.h"
#include "stats/StatsSampler.h"
#include "workbench/Host.h"
#include "workbench/Workbench.h"

namespace sbw {

HostList::HostList(Workbench* workbench, QWidget* parent) : QListWidget(parent), m_workbench(workbench)
{
    setObjectName(QStringLiteral("hostList"));
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setToolTip(tr("The libvirt hosts of this window (File ▸ Add Connection…)"));
    // A line with its figures is wider than the Sessions dock: lines wrap, and the list is as
    // tall as they are (updateGeometries()), so every host's line shows whole, with no scroll
    // bar to hide one.
    setWordWrap(true);
    setResizeMode(QListView::Adjust);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    for (Host* host : workbench->hosts())
        add(host);
    connect(workbench, &Workbench::hostAdded, this, &HostList::add);
}

QString HostList::lineOf(const Host& host)
{
    static const QString separator = QStringLiteral(" · ");
    QStringList parts = host.summary().split(separator);
    const QList<HostSample> samples = host.sampler()->hostHistory();
    if (host.connection()->state() == ConnectionState::Active && !samples.isEmpty()) {
        const HostSample& last = samples.constLast();
        if (last.cpuPercent)
            parts << tr("CPU %1 %").arg(*last.cpuPercent, 0, 'f', 0);
        if (last.memoryUsedMiB && last.memoryTotalMiB)
            parts << tr("memory %1 of %2 GiB")
                         .arg(*last.memoryUsedMiB / 1024, 0, 'f', 1)
                         .arg(*last.memoryTotalMiB / 1024, 0, 'f', 1);
    }
    // A line wraps between its parts, never inside one ("23.5 GiB" stays together).
    for (QString& part : parts)
        part.replace(QLatin1Char(' '), QChar::Nbsp);
    return parts.join(separator);
}

void HostList::add(Host* host)
{
    auto* item = new QListWidgetItem(this);
    item->setData(Qt::UserRole, host->uri());
    connect(host, &Host::changed, this, [this, host] { update(host); });
    connect(host->sampler(), &StatsSampler::sampled, this, [this, host] { update(host); });
    update(host);
}

void HostList::update(Host* host)
{
    const int row = m_workbench->hosts().indexOf(host);
    QListWidgetItem* line = item(row);
    if (!line)
        return;
    line->setText(lineOf(*host));
    const QString reason = host->connection()->stateReason();
    line->setToolTip(reason.isEmpty() ? host->uri() : host->uri() + QLatin1Char('\n') + makeVisible(reason));
}

void HostList::updateGeometries()
{
    QListWidget::updateGeometries();
    // After each layout: a line that wraps anew (new text, another width) changes the height.
    setFixedHeight(contentsSize().height() + 2 * frameWidth());
}

} // namespace sbw
