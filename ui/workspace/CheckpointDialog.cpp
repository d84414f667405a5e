#include "workspace/CheckpointDialog.h"

#include "workspace/WorkspaceCheckpoint.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace sbw {

CheckpointDialog::CheckpointDialog(const QString& workspace, QWidget* parent)
    : QDialog(parent), m_name(new QLineEdit(this)), m_note(new QLineEdit(this)),
      m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    // The workspace's name is in the text rather than the title, which window managers cut off.
    setWindowTitle(tr("New Checkpoint"));
    auto* intro = new QLabel(
        tr("Save the disk and memory of workspace '%1' as a checkpoint.").arg(workspace), this);
    intro->setTextFormat(Qt::PlainText); // one line: a wrapped label gets too little height
    m_name->setObjectName(QStringLiteral("checkpointNameEdit"));
    m_name->setText(
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("'cp-'yyyyMMdd-HHmmss")));
    m_name->selectAll();
    m_note->setObjectName(QStringLiteral("checkpointNoteEdit"));
    m_note->setPlaceholderText(tr("what this state is (optional)"));
    m_problem->setTextFormat(Qt::PlainText);
    m_problem->setWordWrap(true);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Take Checkpoint"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("N&ote:"), m_note);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 60);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &CheckpointDialog::validate);
    validate();
}

QString CheckpointDialog::name() const
{
    return m_name->text();
}

QString CheckpointDialog::note() const
{
    return m_note->text().trimmed();
}

QString CheckpointDialog::problem() const
{
    return m_problem->text();
}

void CheckpointDialog::validate()
{
    const Expected<void> valid = validateCheckpointName(m_name->text());
    m_problem->setText(valid ? QString() : valid.error().message);
    m_problem->setVisible(!valid);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(valid.ok());
}

} // namespace sbw
