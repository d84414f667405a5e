#include "run/RunLimitsEditor.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>

namespace sbw {
namespace {

QSpinBox* spinBox(QWidget* parent, const char* objectName, int minimum, int maximum,
                  const QString& suffix, const QString& toolTip)
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(QLatin1String(objectName));
    box->setRange(minimum, maximum);
    box->setSuffix(suffix);
    box->setToolTip(toolTip);
    return box;
}

} // namespace

RunLimitsEditor::RunLimitsEditor(QWidget* parent)
    : QWidget(parent),
      m_vcpus(spinBox(this, "vcpusBox", 1, 16, QString(), tr("Virtual CPUs of the microVM"))),
      m_memory(spinBox(this, "memoryBox", 128, 65536, tr(" MiB"),
                       tr("Memory of the microVM; past it the guest's kernel kills a process"))),
      m_disk(spinBox(this, "diskBox", 0, 1024, tr(" GiB"),
                     tr("Size of the microVM's disk, which its root file system fills"))),
      m_cpuShare(spinBox(this, "cpuShareBox", 0, 100, tr(" %"),
                         tr("CPU time of all vCPUs together, in percent of one host core"))),
      m_lifetime(spinBox(this, "lifetimeBox", 0, 24 * 3600, tr(" s"),
                         tr("Wall-clock limit of the whole run, boot included"))),
      m_outputCap(spinBox(this, "outputCapBox", 0, 1024 * 1024, tr(" MiB"),
                          tr("Output kept per stream; past it the rest is dropped and the "
                             "script killed"))),
      m_network(new QComboBox(this))
{
    m_network->setObjectName(QStringLiteral("networkBox"));
    m_network->addItem(tr("None"), QStringLiteral("none"));
    m_network->addItem(tr("Allowlist"), QStringLiteral("allowlist"));
    m_network->setToolTip(tr("None: no network. Allowlist: the script reaches hosts only through the "
                             "workbench's proxy; the policy's network rules allow or deny each "
                             "destination, and the others wait in Approvals"));
    m_memory->setSingleStep(128);
    m_disk->setSpecialValueText(tr("Image size"));
    m_cpuShare->setSpecialValueText(tr("No limit"));
    m_lifetime->setSpecialValueText(tr("No limit"));
    m_outputCap->setSpecialValueText(tr("No limit"));
    // 100 % of one host core per vCPU at most (validateCpuShare()).
    connect(m_vcpus, &QSpinBox::valueChanged, this,
            [this](int vcpus) { m_cpuShare->setMaximum(100 * vcpus); });

    // Two rows of three, so that the run pane stays narrow enough for a half-screen window.
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setHorizontalSpacing(6);
    int cell = 0;
    const auto add = [&](const QString& label, QWidget* box) {
        auto* text = new QLabel(label, this);
        text->setBuddy(box);
        const int row = cell / 3, column = 2 * (cell % 3);
        layout->addWidget(text, row, column, Qt::AlignRight);
        layout->addWidget(box, row, column + 1);
        ++cell;
    };
    add(tr("vC&PUs:"), m_vcpus);
    add(tr("&Memory:"), m_memory);
    add(tr("&Disk:"), m_disk);
    add(tr("CPU s&hare:"), m_cpuShare);
    add(tr("L&ifetime:"), m_lifetime);
    add(tr("O&utput cap:"), m_outputCap);
    add(tr("N&etwork:"), m_network);
    layout->setColumnStretch(6, 1);
    setFrom(RunOptions{});
}

void RunLimitsEditor::applyTo(RunOptions& options) const
{
    options.sandbox.vcpus = m_vcpus->value();
    options.sandbox.memoryMiB = m_memory->value();
    options.sandbox.diskGiB = m_disk->value();
    options.sandbox.cpuSharePercent = m_cpuShare->value();
    options.lifetime = std::chrono::seconds(m_lifetime->value());
    options.outputCapBytes = qint64(m_outputCap->value()) << 20;
    options.egressProxy = m_network->currentData() == QLatin1String("allowlist");
}

void RunLimitsEditor::setFrom(const RunOptions& options)
{
    m_vcpus->setValue(options.sandbox.vcpus);
    m_memory->setValue(options.sandbox.memoryMiB);
    m_disk->setValue(options.sandbox.diskGiB);
    m_cpuShare->setValue(options.sandbox.cpuSharePercent);
    m_lifetime->setValue(int(options.lifetime.count()));
    m_outputCap->setValue(int(options.outputCapBytes >> 20));
    m_network->setCurrentIndex(options.egressProxy ? 1 : 0);
}

QList<QSpinBox*> RunLimitsEditor::boxes() const
{
    // vCPUs first: they set the CPU share's maximum.
    return {m_vcpus, m_memory, m_disk, m_cpuShare, m_lifetime, m_outputCap};
}

void RunLimitsEditor::save(QSettings& settings) const
{
    for (const QSpinBox* box : boxes())
        settings.setValue(box->objectName(), box->value());
    settings.setValue(m_network->objectName(), m_network->currentData());
}

void RunLimitsEditor::restore(const QSettings& settings)
{
    for (QSpinBox* box : boxes()) {
        bool ok = false;
        const int value = settings.value(box->objectName()).toInt(&ok);
        if (ok)
            box->setValue(value); // clamped to the box's range
    }
    if (const int network = m_network->findData(settings.value(m_network->objectName())); network >= 0)
        m_network->setCurrentIndex(network);
}

} // namespace sbw
