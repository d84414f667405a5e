#pragma once

#include "workspace/WorkspaceRecord.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace sbw {

class ImageTemplateBox;

/// Asks for what a new workspace is made of: name (checked with validateWorkspaceName() while
/// typing), image recipe, vCPUs, memory (MiB), disk size (GiB), CPU share (percent of one host
/// core for all vCPUs, 0 = no limit, at most 100 per vCPU) and network (none, NAT or allowlist)
/// — the settings of `sbw ws create` — and whether to start it at once ("Start it now", on unless
/// turned off). The image and limits of the last accepted dialog are kept in QSettings (group
/// "newWorkspace") and offered by the next one.
class NewWorkspaceDialog : public QDialog
{
    Q_OBJECT

public:
    explicit NewWorkspaceDialog(QWidget* parent = nullptr);

    /// Names already taken (the workspaces there are): typing one says so at once, and OK waits.
    void setTakenNames(const QStringList& names);
    /// Offers a choice of host (libvirt connection URIs, the default first) when there are
    /// several; with one the dialog shows none.
    void setHosts(const QStringList& uris);
    /// The chosen host's URI; the first of setHosts() unless another was chosen.
    QString host() const;

    QString name() const;
    WorkspaceSettings settings() const;
    /// Whether the workspace is to be started once it is made.
    bool startNow() const;

    void accept() override;

private:
    void validate();
    void restoreChoices();

    QLineEdit* m_name;
    ImageTemplateBox* m_recipe;
    QSpinBox* m_vcpus;
    QSpinBox* m_memory;
    QString m_recipeShown; ///< the image whose default memory m_memory may show
    QSpinBox* m_disk;
    QSpinBox* m_cpuShare;
    QComboBox* m_network;
    QCheckBox* m_startNow;
    QComboBox* m_host = nullptr; ///< made by setHosts() when there is a choice
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
    QStringList m_taken;
};

} // namespace sbw
