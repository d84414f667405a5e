#include "stats/GraphPane.h"

#include "stats/GraphPaneChart.h"
#include "stats/StatsSampler.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>

namespace sbw {
namespace {

constexpr qint64 kMinWindowMs = 60'000;

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

/// Points of one figure; a halted sandbox uses no CPU, so CPU is 0 there rather than a gap.
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
      m_cpu(new GraphPaneChart(tr("CPU"), tr("CPU"), QStringLiteral("%"))),
      m_memory(new GraphPaneChart(tr("Memory used"), tr("memory"), QStringLiteral("MiB"))),
      m_disk(new GraphPaneChart(tr("Disk"), tr("disk"), QStringLiteral("B/s"))),
      m_network(new GraphPaneChart(tr("Network"), tr("network"), QStringLiteral("B/s"))),
      m_host(new GraphPaneChart(tr("Host"), tr("CPU"), QStringLiteral("%")))
{
    m_cpu->setValueMax(100);
    m_host->setValueMax(100);
    m_cpu->addLine(tr("CPU"), lineColor(0));
    m_memory->addLine(tr("used"), lineColor(2));
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
    // Three charts a row, each tall enough for its axes and legend; a short dock scrolls the second row.
    const QList<GraphPaneChart*> all{m_cpu, m_memory, m_host, m_disk, m_network};
    for (int i = 0; i < all.size(); ++i) {
        all[i]->setMinimumHeight(fontMetrics().height() * 13);
        grid->addWidget(all[i], i / 3, i % 3);
    }
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
    connect(m_sampler, &StatsSampler::sampled, this, &GraphPane::onSampled);
    connect(m_sampler, &StatsSampler::samplingFailed, this, [this](const QString& message) {
        m_status->setText(tr("Statistics unavailable: %1").arg(message));
        m_status->show();
    });
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

void GraphPane::onSampled(const StatsTick& tick)
{
    m_status->hide();
    for (const SandboxSample& s : tick.sandboxes) {
        // Names come from libvirt (our own "sbw-run-…" or a workspace name): shown as plain text.
        const QString label = QStringLiteral("%1 (%2)").arg(s.name, domainStateName(s.state));
        const int index = m_picker->findData(s.uuid);
        if (index < 0)
            m_picker->addItem(label, s.uuid);
        else
            m_picker->setItemText(index, label);
    }
    refreshSandboxCharts();
    refreshHostChart();
}

void GraphPane::refreshSandboxCharts()
{
    const QList<SandboxSample> samples = m_sampler->history(selectedSandbox());
    const qint64 intervalMs = m_sampler->interval().count();
    qint64 from = samples.isEmpty() ? 0 : samples.constFirst().timeMs;
    const qint64 to = samples.isEmpty() ? kMinWindowMs : samples.constLast().timeMs + intervalMs;
    from = std::min(from, to - kMinWindowMs);
    const QList<GraphPaneChart::Span> spans = haltedSpans(samples, intervalMs);

    const QList<QPointF> cpu = points(samples, [](const SandboxSample& s) {
        return isHalted(s.state) ? std::optional<double>(0) : s.cpuPercent;
    });
    const QList<QPointF> memory =
        points(samples, [](const SandboxSample& s) { return s.memoryUsedMiB; });
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
    m_memory->setValueMax(memoryTotal > 0 ? memoryTotal : maxY(memory));
    for (GraphPaneChart* chart : {m_cpu, m_memory, m_disk, m_network}) {
        chart->setTimeRange(from, to);
        chart->setSpans(spans);
    }
}

void GraphPane::refreshHostChart()
{
    const QStringList uuids = m_sampler->sandboxes();
    const QList<HostSample> host = m_sampler->hostHistory();
    if (m_host->lines().size() != uuids.size() + 1) {
        m_host->clearLines();
        m_host->addLine(tr("host"), kHost, true);
        for (int i = 0; i < uuids.size(); ++i)
            m_host->addLine(QString(), lineColor(i));
    }
    QList<QPointF> hostCpu;
    for (const HostSample& h : host)
        if (h.cpuPercent)
            hostCpu.append(QPointF(qreal(h.timeMs), *h.cpuPercent));
    m_host->lines().at(0)->replace(hostCpu);
    for (int i = 0; i < uuids.size(); ++i) {
        const QList<SandboxSample> samples = m_sampler->history(uuids[i]);
        QLineSeries* line = m_host->lines().at(i + 1);
        line->setName(samples.isEmpty() ? uuids[i] : samples.constLast().name);
        line->replace(points(samples, [](const SandboxSample& s) {
            return isHalted(s.state) ? std::optional<double>(0) : s.cpuPercent;
        }));
    }
    const qint64 intervalMs = m_sampler->interval().count();
    const qint64 to = host.isEmpty() ? kMinWindowMs : host.constLast().timeMs + intervalMs;
    const qint64 from = std::min(host.isEmpty() ? 0 : host.constFirst().timeMs, to - kMinWindowMs);
    m_host->setTimeRange(from, to);
    if (!host.isEmpty() && host.constLast().memoryUsedMiB && host.constLast().memoryTotalMiB)
        m_host->chart()->setTitle(tr("Host: CPU of each sandbox (of its vCPUs) and of the host; "
                                     "memory %1 of %2 MiB used")
                                      .arg(qRound(*host.constLast().memoryUsedMiB))
                                      .arg(qRound(*host.constLast().memoryTotalMiB)));
}

} // namespace sbw
