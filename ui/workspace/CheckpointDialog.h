#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace sbw {

/// Asks for a new checkpoint's name (prefilled with cp-<UTC time>) and an optional one-line
/// note in one dialog. Enter in either field confirms; OK is enabled while the name is valid,
/// and a line under the fields says what is wrong with it otherwise.
class CheckpointDialog : public QDialog
{
    Q_OBJECT

public:
    explicit CheckpointDialog(const QString& workspace, QWidget* parent = nullptr);

    QString name() const;
    QString note() const;
    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* noteEdit() const { return m_note; }
    QDialogButtonBox* buttons() const { return m_buttons; }
    /// Why the name is refused, or empty while it is valid.
    QString problem() const;

private:
    void validate();

    QLineEdit* m_name;
    QLineEdit* m_note;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
};

} // namespace sbw
