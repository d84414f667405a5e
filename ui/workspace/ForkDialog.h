#pragma once

#include "base/Expected.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceCheckpoint.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace sbw {

/// "<source>-fork", or "<source>-fork-2", "-fork-3" … when that is in `taken`; the source's part
/// is cut so that the name stays within a workspace name's 40 characters.
QString suggestForkName(const QString& source, const QStringList& taken);

/// Asks how to fork workspace `source` (Workspace ▸ Fork…): the fork's name, prefilled with
/// suggestForkName() and checked as it is typed (validateWorkspaceName(), and not one of
/// `taken`; OK is enabled while it passes, a line under the fields says what is wrong
/// otherwise); where from: the workspace as it is now or one of its checkpoints (the list
/// arrives by setCheckpoints(), read off the GUI thread); and, when the source is up (running
/// or paused), whether its memory comes along, so that its processes run on in the fork. A
/// line under them says what the fork will be and what the source feels.
class ForkDialog : public QDialog
{
    Q_OBJECT

public:
    ForkDialog(const QString& source, bool sourceUp, const QStringList& taken,
               QWidget* parent = nullptr);

    /// Offers `checkpoints` in the From list, or says why they cannot be offered.
    void setCheckpoints(const Expected<QList<CheckpointInfo>>& checkpoints);

    QString name() const;
    /// The checkpoint chosen, and whether the memory comes along (false for a source that is
    /// down or a checkpoint, which brings its own).
    ForkOptions options() const;

    QLineEdit* nameEdit() const { return m_name; }
    QComboBox* fromBox() const { return m_from; }
    QCheckBox* memoryBox() const { return m_memory; }
    QDialogButtonBox* buttons() const { return m_buttons; }
    /// Why the name is refused, or empty while it is valid.
    QString problem() const;
    /// What the fork will be, as the dialog says it.
    QString outcome() const;

private:
    void validate();
    void describeOutcome();

    QString m_source;
    bool m_sourceUp;
    QStringList m_taken;
    QLineEdit* m_name;
    QComboBox* m_from;
    QCheckBox* m_memory;
    QLabel* m_outcome;
    QLabel* m_problem;
    QDialogButtonBox* m_buttons;
};

} // namespace sbw
