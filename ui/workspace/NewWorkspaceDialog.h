#pragma once

#include "workspace/WorkspaceRecord.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace sbw {

class ImageTemplateBox;

/// Asks for what a new workspace is made of: name (checked with validateWorkspaceName() while
/// typing), image recipe, vCPUs, memory (MiB), disk size (GiB), CPU share (percent of one host
/// core for all vCPUs, 0 = no limit, at most 100 per vCPU) and network (none or NAT) — the
/// settings of `sbw ws create`.
class NewWorkspaceDialog : public QDialog
{
    Q_OBJECT

public:
    explicit NewWorkspaceDialog(QWidget* parent = nullptr);

    QString name() const;
    WorkspaceSettings settings() const;

private:
    void validate();

    QLineEdit* m_name;
    ImageTemplateBox* m_recipe;
    QSpinBox* m_vcpus;
    QSpinBox* m_memory;
    QSpinBox* m_disk;
    QSpinBox* m_cpuShare;
    QComboBox* m_network;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
};

} // namespace sbw
