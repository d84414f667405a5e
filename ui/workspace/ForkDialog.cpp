#include "workspace/ForkDialog.h"

#include "base/VisibleText.h"
#include "workspace/WorkspaceRecord.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace sbw {
namespace {

constexpr int kMaxNameLength = 40; // validateWorkspaceName()

/// `base` + `suffix`, `base` cut (and a '-' it would end in dropped) to stay a valid length.
QString fitName(const QString& base, const QString& suffix)
{
    QString head = base.left(kMaxNameLength - suffix.size());
    while (head.endsWith(QLatin1Char('-')))
        head.chop(1);
    return head + suffix;
}

} // namespace

QString suggestForkName(const QString& source, const QStringList& taken)
{
    QString name = fitName(source, QStringLiteral("-fork"));
    for (int n = 2; taken.contains(name); ++n)
        name = fitName(source, QStringLiteral("-fork-%1").arg(n));
    return name;
}

ForkDialog::ForkDialog(const QString& source, bool sourceUp, const QStringList& taken,
                       QWidget* parent)
    : QDialog(parent), m_source(source), m_sourceUp(sourceUp), m_taken(taken),
      m_name(new QLineEdit(this)), m_from(new QComboBox(this)),
      m_memory(new QCheckBox(tr("with its &memory (processes keep running)"), this)),
      m_outcome(new QLabel(this)), m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Fork Workspace"));
    auto* intro =
        new QLabel(tr("Make a new workspace from workspace '%1', with a copy of its disk, "
                      "checkpoints, variables and policy rules.")
                       .arg(source),
                   this);
    intro->setTextFormat(Qt::PlainText);
    intro->setWordWrap(true);
    m_name->setObjectName(QStringLiteral("forkNameEdit"));
    m_name->setText(suggestForkName(source, taken));
    m_name->selectAll();
    m_from->setObjectName(QStringLiteral("forkFromBox"));
    m_from->addItem(tr("the workspace as it is now"), QString());
    m_memory->setObjectName(QStringLiteral("forkMemoryBox"));
    m_memory->setChecked(true);
    m_memory->setVisible(sourceUp); // a workspace that is down has no memory to carry
    for (QLabel* label : {m_outcome, m_problem}) {
        label->setTextFormat(Qt::PlainText);
        label->setWordWrap(true);
    }
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Fork"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&From:"), m_from);
    form->addRow(QString(), m_memory);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_outcome);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 70);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &ForkDialog::validate);
    connect(m_from, &QComboBox::currentIndexChanged, this, &ForkDialog::describeOutcome);
    connect(m_memory, &QCheckBox::toggled, this, &ForkDialog::describeOutcome);
    validate();
    describeOutcome();
}

void ForkDialog::setCheckpoints(const Expected<QList<CheckpointInfo>>& checkpoints)
{
    if (!checkpoints) {
        m_from->addItem(
            tr("(cannot list the checkpoints: %1)").arg(makeVisible(checkpoints.error().message)));
        // Shown, not choosable: the person learns why no checkpoint is offered.
        if (auto* model = qobject_cast<QStandardItemModel*>(m_from->model()))
            model->item(m_from->count() - 1)->setEnabled(false);
        return;
    }
    for (const CheckpointInfo& checkpoint : checkpoints.value())
        m_from->addItem(tr("checkpoint %1, taken %2 UTC")
                            .arg(checkpoint.name, checkpoint.created.toString(
                                                      QStringLiteral("yyyy-MM-dd HH:mm:ss"))),
                        checkpoint.name);
}

QString ForkDialog::name() const
{
    return m_name->text();
}

ForkOptions ForkDialog::options() const
{
    ForkOptions options;
    options.checkpoint = m_from->currentData().toString();
    options.memory = m_sourceUp && options.checkpoint.isEmpty() && m_memory->isChecked();
    return options;
}

QString ForkDialog::problem() const
{
    return m_problem->text();
}

QString ForkDialog::outcome() const
{
    return m_outcome->text();
}

void ForkDialog::validate()
{
    const QString name = m_name->text();
    Expected<void> valid = validateWorkspaceName(name);
    if (valid && m_taken.contains(name))
        valid = makeError(tr("a workspace named '%1' already exists").arg(name));
    m_problem->setText(valid ? QString() : valid.error().message);
    m_problem->setVisible(!valid);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(valid.ok());
}

void ForkDialog::describeOutcome()
{
    const ForkOptions chosen = options();
    // The memory only matters for the state now; a checkpoint brings its own.
    m_memory->setEnabled(chosen.checkpoint.isEmpty());
    QString text;
    if (!chosen.checkpoint.isEmpty())
        text = tr("The fork starts in the state of checkpoint '%1': its disk and memory then.")
                   .arg(chosen.checkpoint);
    else if (chosen.memory)
        text = tr("The fork goes on from the state of '%1' now: its memory comes along, and its "
                  "processes keep running in the fork.")
                   .arg(m_source);
    else
        text = tr("The fork gets the disk of '%1' as it is now and is left stopped.").arg(m_source);
    // The overlay can only be copied whole with QEMU gone (WorkspaceFork.cpp).
    if (m_sourceUp)
        text += QLatin1Char(' ') + tr("'%1' is saved and restored while its disk is copied: its "
                                      "commands pause for that time.")
                                       .arg(m_source);
    m_outcome->setText(text);
}

} // namespace sbw
