#include "workspace/WorkspaceSettingsDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sbw {
namespace {

enum Column
{
    NameColumn,
    ValueColumn,
    SecretColumn
};

} // namespace

WorkspaceSettingsDialog::WorkspaceSettingsDialog(const QString& workspace,
                                                 const WorkspaceEnvironment& environment,
                                                 QWidget* parent)
    : QDialog(parent), m_table(new QTableWidget(0, 3, this)), m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Workspace Settings — %1").arg(workspace));
    auto* intro = new QLabel(tr("Environment variables set in every command run in this "
                                "workspace. Secret values are masked in the command log."),
                             this);
    intro->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("environmentTable"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Value"), tr("Secret")});
    m_table->horizontalHeader()->setSectionResizeMode(ValueColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* add = new QPushButton(tr("&Add"), this);
    auto* remove = new QPushButton(tr("&Remove"), this);
    auto* rowButtons = new QHBoxLayout;
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch();
    m_problem->setWordWrap(true);
    m_problem->setTextFormat(Qt::PlainText);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_table, 1);
    layout->addLayout(rowButtons);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    resize(560, 320);

    connect(add, &QPushButton::clicked, this, [this] {
        const int row = addVariable({}, {}, false);
        m_table->setCurrentCell(row, NameColumn);
        m_table->cellWidget(row, NameColumn)->setFocus();
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (const int row = m_table->currentRow(); row >= 0)
            m_table->removeRow(row);
        validate();
    });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (const WorkspaceVariable& variable : environment.variables())
        addVariable(variable.name, variable.value, variable.secret);
    validate();
}

int WorkspaceSettingsDialog::addVariable(const QString& name, const QString& value, bool secret)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto* nameEdit = new QLineEdit(name, m_table);
    nameEdit->setPlaceholderText(tr("e.g. API_TOKEN"));
    auto* valueEdit = new QLineEdit(value, m_table);
    auto* secretBox = new QCheckBox(m_table);
    secretBox->setChecked(secret);
    valueEdit->setEchoMode(secret ? QLineEdit::Password : QLineEdit::Normal);
    connect(secretBox, &QCheckBox::toggled, valueEdit, [valueEdit](bool on) {
        valueEdit->setEchoMode(on ? QLineEdit::Password : QLineEdit::Normal);
    });
    connect(nameEdit, &QLineEdit::textChanged, this, &WorkspaceSettingsDialog::validate);
    m_table->setCellWidget(row, NameColumn, nameEdit);
    m_table->setCellWidget(row, ValueColumn, valueEdit);
    m_table->setCellWidget(row, SecretColumn, secretBox);
    validate();
    return row;
}

WorkspaceEnvironment WorkspaceSettingsDialog::environment() const
{
    WorkspaceEnvironment environment;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto* name = static_cast<QLineEdit*>(m_table->cellWidget(row, NameColumn));
        const auto* value = static_cast<QLineEdit*>(m_table->cellWidget(row, ValueColumn));
        const auto* secret = static_cast<QCheckBox*>(m_table->cellWidget(row, SecretColumn));
        (void)environment.set(name->text().trimmed(), value->text(), secret->isChecked());
    }
    return environment;
}

void WorkspaceSettingsDialog::validate()
{
    QString problem;
    QSet<QString> seen;
    for (int row = 0; row < m_table->rowCount() && problem.isEmpty(); ++row) {
        const QString name =
            static_cast<QLineEdit*>(m_table->cellWidget(row, NameColumn))->text().trimmed();
        if (auto valid = validateVariableName(name); !valid)
            problem = name.isEmpty() ? tr("Row %1 has no name.").arg(row + 1) : valid.error().message;
        else if (seen.contains(name))
            problem = tr("%1 is set twice.").arg(name);
        seen.insert(name);
    }
    m_problem->setText(problem);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

} // namespace sbw
