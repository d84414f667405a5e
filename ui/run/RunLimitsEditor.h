#pragma once

#include "run/EphemeralRun.h"

#include <QWidget>

class QComboBox;
class QSettings;
class QSpinBox;

namespace sbw {

/// The limits of an ephemeral run beside its timeout, in one row: vCPUs, memory (MiB), disk
/// (GiB, 0 = the image's size), CPU share (percent of one host core for all vCPUs, 0 = none,
/// at most 100 per vCPU), session lifetime (s, 0 = none), output cap (MiB per stream,
/// 0 = none) and network (none, or the allowlist through the egress proxy: RunOptions::
/// egressProxy). Defaults as `sbw run`'s.
class RunLimitsEditor : public QWidget
{
    Q_OBJECT

public:
    explicit RunLimitsEditor(QWidget* parent = nullptr);

    /// Writes the limits into `options` (sandbox vCPUs, memory, disk, CPU share; lifetime;
    /// output cap in bytes; network).
    void applyTo(RunOptions& options) const;
    /// Shows the limits of `options` (values out of a box's range are clamped).
    void setFrom(const RunOptions& options);
    /// Keeps the limits shown in `settings` (one key per box in its current group), and shows
    /// the ones kept there; limits not kept keep their values.
    void save(QSettings& settings) const;
    void restore(const QSettings& settings);

private:
    QList<QSpinBox*> boxes() const;

    QSpinBox* m_vcpus;
    QSpinBox* m_memory;
    QSpinBox* m_disk;
    QSpinBox* m_cpuShare;
    QSpinBox* m_lifetime;
    QSpinBox* m_outputCap;
    QComboBox* m_network;
};

} // namespace sbw
