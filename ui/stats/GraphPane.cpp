#include "stats/GraphPane.h"

#include "stats/GraphPaneChart.h"
#include "stats/StatsSampler.h"
#include "workspace/WorkspaceRecord.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineSeries>
#include <QMap>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QSet>

#include <algorithm>
#include <cstring>

namespace sbw {
namespace {

/// The picker's role for a sandbox's shown name (without its state).
constexpr int kNameRole = Qt::UserRole + 1;

constexpr qint64 kMinWindowMs = 60'000;
/// Sandboxes with a line of their own on the host chart; more would be a tangle of colours.
constexpr qsizetype kHostChartSandboxes = 5;

const QColor kRead(0x1f, 0x77, 0xb4);
const QColor kWrite(0xd6, 0x27, 0x28);
const QColor kHost(0x44, 0x44, 0x44);

QColor lineColor(int index)
{
    static const QList<QColor> palette = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                          QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                                          QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2),
                                          QColor(0x17, 0xbe, 0xcf), QColor(0xbc, 0xbd, 0x22)};
    return palette.at(index % palette.size());
}

/// The unit that keeps `maxBytesPerSec` readable, and its divisor.
std::pair<QString, double> rateUnit(double maxBytesPerSec)
{
    if (maxBytesPerSec >= 1024.0 * 1024.0)
        return {QStringLiteral("MiB/s"), 1024.0 * 1024.0};
    if (maxBytesPerSec >= 1024.0)
        return {QStringLiteral("KiB/s"), 1024.0};
    return {QStringLiteral("B/s"), 1.0};
}

/// Spans in which the sandbox was halted, from its first halted sample to the next sample (or
/// one interval past the last one while it still is).
QList<GraphPaneChart::Span> haltedSpans(const QList<SandboxSample>& samples, qint64 intervalMs)
{
    QList<GraphPaneChart::Span> spans;
    for (qsizetype i = 0; i < samples.size(); ++i) {
        if (!isHalted(samples[i].state))
            continue;
        const DomainState state = samples[i].state;
        const qint64 from = samples[i].timeMs;
        while (i + 1 < samples.size() && samples[i + 1].state == state)
            ++i;
        const qint64 to =
            i + 1 < samples.size() ? samples[i + 1].timeMs : samples[i].timeMs + intervalMs;
        spans.append({from, to, domainStateName(state)});
    }
    return spans;
}

/// Points of one figure, where the samples have it.
template <typename Figure>
QList<QPointF> points(const QList<SandboxSample>& samples, Figure figure, double divisor = 1.0)
{
    QList<QPointF> out;
    out.reserve(samples.size());
    for (const SandboxSample& s : samples)
        if (const std::optional<double> value = figure(s))
            out.append(QPointF(qreal(s.timeMs), *value / divisor));
    return out;
}

/// CPU of a sandbox; a halted one uses none, so it is 0 there rather than a gap.
std::optional<double> cpuOf(const SandboxSample& s)
{
    return isHalted(s.state) ? std::optional<double>(0) : s.cpuPercent;
}

/// One sandbox line of the host chart, or the line of the others.
struct HostChartLine
{
    QString name;
    QList<QPointF> points;
};

/// The host chart's sandbox lines: the kHostChartSandboxes busiest sandboxes (by their mean
/// CPU over the history; ties in the order they were first seen) each have their own line; the
/// rest share one, "N others (busiest)", the highest CPU among them at each tick, so a spike
/// of any of them still shows.
QList<HostChartLine> hostChartLines(const StatsSampler& sampler)
{
    struct Sandbox
    {
        HostChartLine line;
        double meanCpu = 0;
    };
    QList<Sandbox> sandboxes;
    for (const QString& uuid : sampler.sandboxes()) {
        const QList<SandboxSample> samples = sampler.history(uuid);
        Sandbox sandbox{
            {samples.isEmpty() ? uuid : samples.constLast().name, points(samples, cpuOf)}, 0};
        for (const QPointF& p : sandbox.line.points)
            sandbox.meanCpu += p.y() / qreal(sandbox.line.points.size());
        sandboxes.append(sandbox);
    }
    // A line for "1 others" would hide a name for nothing.
    if (sandboxes.size() <= kHostChartSandboxes + 1) {
        QList<HostChartLine> lines;
        for (const Sandbox& sandbox : sandboxes)
            lines.append(sandbox.line);
        return lines;
    }
    std::stable_sort(sandboxes.begin(), sandboxes.end(),
                     [](const Sandbox& a, const Sandbox& b) { return a.meanCpu > b.meanCpu; });
    QList<HostChartLine> lines;
    QMap<qreal, qreal> busiest; // tick time -> highest CPU of the others
    for (qsizetype i = 0; i < sandboxes.size(); ++i) {
        if (i < kHostChartSandboxes) {
            lines.append(sandboxes[i].line);
            continue;
        }
        for (const QPointF& p : sandboxes[i].line.points)
            busiest[p.x()] = std::max(busiest.value(p.x(), 0), p.y());
    }
    HostChartLine others{
        QObject::tr("%1 others (busiest)").arg(sandboxes.size() - kHostChartSandboxes), {}};
    for (auto it = busiest.cbegin(); it != busiest.cend(); ++it)
        others.points.append(QPointF(it.key(), it.value()));
    lines.append(others);
    return lines;
}

/// The host charts' time range: the history, and at least kMinWindowMs.
std::pair<qint64, qint64> hostTimeRange(const QList<HostSample>& host, qint64 intervalMs)
{
    const qint64 to = host.isEmpty() ? kMinWindowMs : host.constLast().timeMs + intervalMs;
    return {std::min(host.isEmpty() ? 0 : host.constFirst().timeMs, to - kMinWindowMs), to};
}

double maxY(const QList<QPointF>& a, const QList<QPointF>& b = {})
{
    double max = 0;
    for (const auto* list : {&a, &b})
        for (const QPointF& p : *list)
            max = std::max(max, p.y());
    return max;
}

} // namespace

GraphPane::GraphPane(StatsSampler* sampler, QWidget* parent)
    : QWidget(parent), m_sampler(sampler), m_picker(new QComboBox), m_status(new QLabel),
      m_cpu(new GraphPaneChart(tr("CPU"), QStringLiteral("%"))),
      m_memory(new GraphPaneChart(tr("Memory"), QStringLiteral("MiB"))),
      m_disk(new GraphPaneChart(tr("Disk"), QStringLiteral("B/s"))),
      m_network(new GraphPaneChart(tr("Network"), QStringLiteral("B/s"))),
      m_host(new GraphPaneChart(tr("Host CPU"), QStringLiteral("%"))),
      m_hostMemory(new GraphPaneChart(tr("Sandboxes' memory on the host"), QStringLiteral("MiB")))
{
    m_cpu->setValueMax(100);
    m_host->setValueMax(100);
    m_cpu->addLine(tr("CPU"), lineColor(0));
    m_memory->addLine(tr("used"), lineColor(2));
    m_memory->addLine(tr("resident on host"), lineColor(3));
    m_hostMemory->addLine(tr("all sandboxes (resident)"), kHost, true);
    m_hostMemory->addLine(tr("merged by KSM (saved)"), lineColor(2));
    m_disk->addLine(tr("read"), kRead);
    m_disk->addLine(tr("write"), kWrite);
    m_network->addLine(tr("received"), kRead);
    m_network->addLine(tr("sent"), kWrite);

    auto* pickerRow = new QHBoxLayout;
    pickerRow->addWidget(new QLabel(tr("Sandbox:")));
    pickerRow->addWidget(m_picker, 1);
    // The charts scroll in a short dock rather than make the window taller than the screen.
    auto* charts = new QWidget;
    auto* grid = new QGridLayout(charts);
    grid->setContentsMargins(0, 0, 0, 0);
    // Three charts a row, each tall enough for its axes; the host's CPU, with a line per
    // sandbox and their names, takes two columns. A short dock scrolls the later rows.
    const QList<GraphPaneChart*> all{m_cpu, m_memory, m_disk, m_network, m_host, m_hostMemory};
    for (GraphPaneChart* chart : all)
        chart->setMinimumChartHeight(fontMetrics().height() * 12);
    grid->addWidget(m_cpu, 0, 0);
    grid->addWidget(m_memory, 0, 1);
    grid->addWidget(m_disk, 0, 2);
    grid->addWidget(m_network, 1, 0);
    grid->addWidget(m_host, 1, 1, 1, 2);
    grid->addWidget(m_hostMemory, 2, 0, 1, 2);
    auto* scroll = new QScrollArea;
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(charts);
    scroll->setMinimumHeight(m_cpu->minimumHeight()); // one row of charts at least
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pickerRow);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_status);
    m_status->setTextFormat(Qt::PlainText);
    m_status->hide();

    connect(m_picker, &QComboBox::currentIndexChanged, this, [this] { refreshSandboxCharts(); });
    follow(m_sampler);
}

void GraphPane::follow(StatsSampler* sampler)
{
    m_sampler = sampler;
    connect(m_sampler, &StatsSampler::sampled, this, &GraphPane::onSampled);
    connect(m_sampler, &StatsSampler::samplingFailed, this, [this](const QString& message) {
        m_status->setText(tr("Statistics unavailable: %1").arg(message));
        m_status->show();
    });
}

void GraphPane::setSampler(StatsSampler* sampler)
{
    if (sampler == m_sampler)
        return;
    disconnect(m_sampler, nullptr, this, nullptr);
    follow(sampler);
    m_status->hide();
    // The new host's sandboxes at once, from what its sampler has kept.
    m_picker->clear();
    int resident = 0;
    for (const QString& uuid : m_sampler->sandboxes()) {
        if (const QList<SandboxSample> history = m_sampler->history(uuid); !history.isEmpty()) {
            list(history.constLast());
            resident += history.constLast().residentMiB.has_value() ? 1 : 0;
        }
    }
    refreshSandboxCharts();
    refreshHostChart();
    refreshHostMemoryChart(resident);
}

QString GraphPane::selectedSandbox() const
{
    return m_picker->currentData().toString();
}

bool GraphPane::selectSandbox(const QString& uuid)
{
    const int index = m_picker->findData(uuid);
    if (index < 0)
        return false;
    m_picker->setCurrentIndex(index);
    return true;
}

void GraphPane::list(const SandboxSample& s)
{
    // Names come from libvirt (our own "sbw-run-…" or a workspace's domain): plain text; a
    // workspace is shown by its own name, as in the Sessions list.
    const QString name = s.name.startsWith(QLatin1String(kWorkspaceDomainPrefix))
                             ? s.name.mid(qsizetype(std::strlen(kWorkspaceDomainPrefix)))
                             : s.name;
    const QString label = QStringLiteral("%1 (%2)").arg(name, domainStateName(s.state));
    int index = m_picker->findData(s.uuid);
    if (index < 0) {
        m_picker->addItem(label, s.uuid);
        index = m_picker->count() - 1;
    }
    m_picker->setItemText(index, label);
    m_picker->setItemData(index, name, kNameRole);
}

void GraphPane::onSampled(const StatsTick& tick)
{
    m_status->hide();
    QSet<QString> present;
    for (const SandboxSample& s : tick.sandboxes) {
        present.insert(s.uuid);
        list(s);
    }
    // A sandbox that left (a run's microVM destroyed, a workspace deleted) says so; its charts
    // stay viewable until the sampler forgets its history.
    const QStringList kept = m_sampler->sandboxes();
    for (int index = m_picker->count() - 1; index >= 0; --index) {
        const QString uuid = m_picker->itemData(index).toString();
        if (present.contains(uuid))
            continue;
        if (kept.contains(uuid))
            m_picker->setItemText(index, tr("%1 (gone)").arg(m_picker->itemData(index, kNameRole).toString()));
        else
            m_picker->removeItem(index);
    }
    refreshSandboxCharts();
    refreshHostChart();
    refreshHostMemoryChart(int(std::count_if(tick.sandboxes.cbegin(), tick.sandboxes.cend(),
                                             [](const SandboxSample& s) { return s.residentMiB.has_value(); })));
}

void GraphPane::refreshSandboxCharts()
{
    const QList<SandboxSample> samples = m_sampler->history(selectedSandbox());
    const qint64 intervalMs = m_sampler->interval().count();
    qint64 from = samples.isEmpty() ? 0 : samples.constFirst().timeMs;
    const qint64 to = samples.isEmpty() ? kMinWindowMs : samples.constLast().timeMs + intervalMs;
    from = std::min(from, to - kMinWindowMs);
    const QList<GraphPaneChart::Span> spans = haltedSpans(samples, intervalMs);

    const QList<QPointF> cpu = points(samples, cpuOf);
    const QList<QPointF> memory =
        points(samples, [](const SandboxSample& s) { return s.memoryUsedMiB; });
    const QList<QPointF> resident =
        points(samples, [](const SandboxSample& s) { return s.residentMiB; });
    double memoryTotal = 0;
    for (const SandboxSample& s : samples)
        memoryTotal = std::max(memoryTotal, s.memoryTotalMiB.value_or(0));

    const auto rates = [&](GraphPaneChart* chart, auto first, auto second) {
        const auto [unit, divisor] =
            rateUnit(maxY(points(samples, first), points(samples, second)));
        const QList<QPointF> a = points(samples, first, divisor);
        const QList<QPointF> b = points(samples, second, divisor);
        chart->setUnit(unit);
        chart->lines().at(0)->replace(a);
        chart->lines().at(1)->replace(b);
        chart->setValueMax(maxY(a, b));
    };
    rates(
        m_disk, [](const SandboxSample& s) { return s.diskReadBytesPerSec; },
        [](const SandboxSample& s) { return s.diskWriteBytesPerSec; });
    rates(
        m_network, [](const SandboxSample& s) { return s.netRxBytesPerSec; },
        [](const SandboxSample& s) { return s.netTxBytesPerSec; });
    m_cpu->lines().at(0)->replace(cpu);
    m_memory->lines().at(0)->replace(memory);
    m_memory->lines().at(1)->replace(resident);
    // Up to the guest's RAM, or higher where QEMU holds more than that (its own memory).
    m_memory->setValueMax(std::max(memoryTotal, maxY(memory, resident)));
    for (GraphPaneChart* chart : {m_cpu, m_memory, m_disk, m_network}) {
        chart->setTimeRange(from, to);
        chart->setSpans(spans);
    }
}

void GraphPane::refreshHostChart()
{
    const QList<HostSample> host = m_sampler->hostHistory();
    const QList<HostChartLine> sandboxLines = hostChartLines(*m_sampler);
    if (m_host->lines().size() != sandboxLines.size() + 1) {
        m_host->clearLines();
        m_host->addLine(tr("host"), kHost, true);
        for (int i = 0; i < sandboxLines.size(); ++i)
            m_host->addLine(QString(), lineColor(i));
    }
    QList<QPointF> hostCpu;
    for (const HostSample& h : host)
        if (h.cpuPercent)
            hostCpu.append(QPointF(qreal(h.timeMs), *h.cpuPercent));
    m_host->lines().at(0)->replace(hostCpu);
    for (int i = 0; i < sandboxLines.size(); ++i) {
        QLineSeries* line = m_host->lines().at(i + 1);
        line->setName(sandboxLines[i].name);
        line->replace(sandboxLines[i].points);
    }
    const auto [from, to] = hostTimeRange(host, m_sampler->interval().count());
    m_host->setTimeRange(from, to);
    if (!host.isEmpty() && host.constLast().memoryUsedMiB && host.constLast().memoryTotalMiB)
        m_host->chart()->setTitle(tr("Host CPU; memory %1 of %2 MiB used")
                                      .arg(qRound(*host.constLast().memoryUsedMiB))
                                      .arg(qRound(*host.constLast().memoryTotalMiB)));
}

void GraphPane::refreshHostMemoryChart(int sandboxes)
{
    const QList<HostSample> host = m_sampler->hostHistory();
    QList<QPointF> resident;
    QList<QPointF> merged;
    for (const HostSample& h : host) {
        if (h.sandboxesResidentMiB)
            resident.append(QPointF(qreal(h.timeMs), *h.sandboxesResidentMiB));
        if (h.mergedMiB)
            merged.append(QPointF(qreal(h.timeMs), *h.mergedMiB));
    }
    m_hostMemory->lines().at(0)->replace(resident);
    m_hostMemory->lines().at(1)->replace(merged);
    m_hostMemory->setValueMax(maxY(resident, merged));
    const auto [from, to] = hostTimeRange(host, m_sampler->interval().count());
    m_hostMemory->setTimeRange(from, to);
    QString title = tr("Sandboxes' memory on the host");
    if (!host.isEmpty() && host.constLast().sandboxesResidentMiB) {
        const int mib = qRound(*host.constLast().sandboxesResidentMiB);
        title = sandboxes == 1 ? tr("Sandboxes' memory on the host: 1 holds %1 MiB").arg(mib)
                               : tr("Sandboxes' memory on the host: %1 hold %2 MiB").arg(sandboxes).arg(mib);
        if (host.constLast().mergedMiB)
            title += tr("; KSM saves %1 MiB").arg(qRound(*host.constLast().mergedMiB));
    }
    m_hostMemory->chart()->setTitle(title);
}

} // namespace sbw
