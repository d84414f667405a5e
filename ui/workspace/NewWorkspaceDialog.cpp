#include "workspace/NewWorkspaceDialog.h"

#include "hypervisor/ConnectionUri.h"
#include "image/ImageTemplateBox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace sbw {
namespace {

/// QSettings group of the last accepted dialog's image and limits.
const QString kChoicesGroup = QStringLiteral("newWorkspace");

} // namespace

NewWorkspaceDialog::NewWorkspaceDialog(QWidget* parent)
    : QDialog(parent), m_name(new QLineEdit(this)), m_recipe(new ImageTemplateBox(this)),
      m_vcpus(new QSpinBox(this)), m_memory(new QSpinBox(this)), m_disk(new QSpinBox(this)),
      m_cpuShare(new QSpinBox(this)), m_network(new QComboBox(this)),
      m_startNow(new QCheckBox(tr("&Start it now"), this)), m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("New Workspace"));
    const WorkspaceSettings defaults;
    m_name->setPlaceholderText(tr("e.g. agent-1"));
    m_recipe->setCurrentRecipe(defaults.recipe);
    m_vcpus->setRange(1, 16);
    m_vcpus->setValue(defaults.vcpus);
    m_memory->setRange(128, 65536);
    m_memory->setSingleStep(128);
    m_memory->setSuffix(tr(" MiB"));
    m_memory->setValue(defaults.memoryMiB);
    m_disk->setRange(4, 1024);
    m_disk->setSuffix(tr(" GiB"));
    m_disk->setValue(defaults.diskGiB);
    m_cpuShare->setRange(0, 100 * defaults.vcpus);
    m_cpuShare->setSuffix(tr(" %"));
    m_cpuShare->setSpecialValueText(tr("No limit"));
    m_cpuShare->setToolTip(tr("CPU time of all vCPUs together, in percent of one host core"));
    m_cpuShare->setValue(defaults.cpuSharePercent);
    connect(m_vcpus, &QSpinBox::valueChanged, this,
            [this](int vcpus) { m_cpuShare->setMaximum(100 * vcpus); });
    // The memory follows the image's default (the browser needs more) unless the person has
    // set another value than the previous image's default.
    m_recipeShown = m_recipe->currentRecipe();
    connect(m_recipe, &QComboBox::currentIndexChanged, this, [this] {
        if (m_memory->value() == defaultWorkspaceMemoryMiB(m_recipeShown))
            m_memory->setValue(defaultWorkspaceMemoryMiB(m_recipe->currentRecipe()));
        m_recipeShown = m_recipe->currentRecipe();
    });
    m_name->setObjectName(QStringLiteral("nameEdit"));
    m_recipe->setObjectName(QStringLiteral("imageBox"));
    m_vcpus->setObjectName(QStringLiteral("vcpusBox"));
    m_memory->setObjectName(QStringLiteral("memoryBox"));
    m_disk->setObjectName(QStringLiteral("diskBox"));
    m_cpuShare->setObjectName(QStringLiteral("cpuShareBox"));
    m_network->setObjectName(QStringLiteral("networkBox"));
    m_network->addItem(tr("None (no network interface)"), workspaceNetworkName(WorkspaceNetwork::None));
    m_network->addItem(tr("NAT (outgoing IPv4 connections and DNS)"), workspaceNetworkName(WorkspaceNetwork::Nat));
    m_network->addItem(tr("Allowlist (HTTP and HTTPS through the proxy, each destination by policy)"),
                       workspaceNetworkName(WorkspaceNetwork::Allowlist));
    m_startNow->setObjectName(QStringLiteral("startNowBox"));
    m_startNow->setChecked(true);
    m_startNow->setToolTip(
        tr("Boot the workspace as soon as it is made; otherwise it stays shut off"));
    restoreChoices();
    m_problem->setStyleSheet(QStringLiteral("color: palette(highlight);"));
    m_problem->setWordWrap(true);
    m_problem->setObjectName(QStringLiteral("nameProblem"));

    auto* form = new QFormLayout(this);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Image:"), m_recipe);
    form->addRow(tr("&vCPUs:"), m_vcpus);
    form->addRow(tr("&Memory:"), m_memory);
    form->addRow(tr("&Disk size:"), m_disk);
    form->addRow(tr("CPU s&hare:"), m_cpuShare);
    form->addRow(tr("Net&work:"), m_network);
    form->addRow(QString(), m_startNow);
    form->addRow(m_problem);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &NewWorkspaceDialog::validate);
    validate();
}

void NewWorkspaceDialog::setHosts(const QStringList& uris)
{
    if (uris.size() < 2)
        return;
    m_host = new QComboBox(this);
    m_host->setObjectName(QStringLiteral("hostBox"));
    for (const QString& uri : uris)
        m_host->addItem(hostDisplayName(uri), uri);
    m_host->setToolTip(tr("The libvirt host the workspace's microVM runs on"));
    auto* form = static_cast<QFormLayout*>(layout());
    form->insertRow(1, tr("&Host:"), m_host);
}

QString NewWorkspaceDialog::host() const { return m_host ? m_host->currentData().toString() : QString(); }

void NewWorkspaceDialog::restoreChoices()
{
    QSettings settings;
    settings.beginGroup(kChoicesGroup);
    if (const QString recipe = settings.value(QStringLiteral("image")).toString();
        m_recipe->findData(recipe) >= 0)
        m_recipe->setCurrentRecipe(recipe);
    for (QSpinBox* box :
         {m_vcpus, m_memory, m_disk, m_cpuShare}) { // vCPUs first: the CPU share's maximum
        bool ok = false;
        if (const int value = settings.value(box->objectName()).toInt(&ok); ok)
            box->setValue(value);
    }
    if (const int network =
            m_network->findData(settings.value(QStringLiteral("network")).toString());
        network >= 0)
        m_network->setCurrentIndex(network);
}

void NewWorkspaceDialog::accept()
{
    QSettings settings;
    settings.beginGroup(kChoicesGroup);
    settings.setValue(QStringLiteral("image"), m_recipe->currentRecipe());
    for (const QSpinBox* box : {m_vcpus, m_memory, m_disk, m_cpuShare})
        settings.setValue(box->objectName(), box->value());
    settings.setValue(QStringLiteral("network"), m_network->currentData());
    QDialog::accept();
}

bool NewWorkspaceDialog::startNow() const
{
    return m_startNow->isChecked();
}

void NewWorkspaceDialog::setTakenNames(const QStringList& names)
{
    m_taken = names;
    validate();
}

void NewWorkspaceDialog::validate()
{
    Expected<void> valid = validateWorkspaceName(name());
    if (valid && m_taken.contains(name()))
        valid = makeError(tr("A workspace named '%1' already exists.").arg(name()));
    m_problem->setText(name().isEmpty() || valid ? QString() : valid.error().message);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!name().isEmpty() && valid.ok());
}

QString NewWorkspaceDialog::name() const
{
    return m_name->text().trimmed();
}

WorkspaceSettings NewWorkspaceDialog::settings() const
{
    WorkspaceSettings settings;
    settings.recipe = m_recipe->currentRecipe();
    settings.vcpus = m_vcpus->value();
    settings.memoryMiB = m_memory->value();
    settings.diskGiB = m_disk->value();
    settings.cpuSharePercent = m_cpuShare->value();
    parseWorkspaceNetwork(m_network->currentData().toString(), &settings.network);
    return settings;
}

} // namespace sbw
