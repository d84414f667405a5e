#pragma once

#include "stats/StatsSample.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace sbw {

class GraphPaneChart;
class StatsSampler;

/// Live resource graphs of the workbench's sandboxes, fed by a StatsSampler (not owned; the
/// pane neither starts nor stops it). A picker selects one sandbox; four charts show its CPU
/// (% of its vCPUs), memory (MiB: used as the guest sees it, axis up to the guest's RAM, and
/// resident on the host, what its QEMU process holds), disk read/write and network rx/tx (B/s,
/// KiB/s or MiB/s, whichever fits), each over the sampler's history with paused, hibernated
/// and stopped spans shaded. Beside them, the host overview: the host's own CPU (dashed) and
/// the CPU of the five busiest sandboxes (each of its vCPUs), the rest together as one line of
/// the highest of them, titled with the host's memory use; and the sandboxes' memory on the
/// host: all of them together (resident) and what kernel same-page merging saves, titled with
/// the latest figures. Sampling failures show in a line under the charts.
class GraphPane : public QWidget
{
    Q_OBJECT

public:
    explicit GraphPane(StatsSampler* sampler, QWidget* parent = nullptr);

    /// Follows `sampler` from now on (another host's): the picker lists its sandboxes, the host
    /// charts show its host. The window calls it when a workspace of another host is selected.
    void setSampler(StatsSampler* sampler);
    StatsSampler* sampler() const { return m_sampler; }

    /// UUID of the sandbox the charts show, or empty before the first sandbox appeared.
    QString selectedSandbox() const;
    /// Shows sandbox `uuid` (one the picker lists); returns false for unknown ones.
    bool selectSandbox(const QString& uuid);

    GraphPaneChart* cpuChart() const { return m_cpu; }
    GraphPaneChart* memoryChart() const { return m_memory; }
    GraphPaneChart* diskChart() const { return m_disk; }
    GraphPaneChart* networkChart() const { return m_network; }
    GraphPaneChart* hostChart() const { return m_host; }
    GraphPaneChart* hostMemoryChart() const { return m_hostMemory; }

private:
    void follow(StatsSampler* sampler);
    /// Lists, or relabels, sandbox `s` in the picker.
    void list(const SandboxSample& s);
    void onSampled(const StatsTick& tick);
    void refreshSandboxCharts();
    void refreshHostChart();
    void refreshHostMemoryChart(int sandboxes);

    StatsSampler* m_sampler;
    QComboBox* m_picker;
    QLabel* m_status;
    GraphPaneChart* m_cpu;
    GraphPaneChart* m_memory;
    GraphPaneChart* m_disk;
    GraphPaneChart* m_network;
    GraphPaneChart* m_host;
    GraphPaneChart* m_hostMemory;
};

} // namespace sbw
