#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;
class QPushButton;

namespace sbw {

/// The input files of the next run (RunOptions::inputFiles): a list of host paths with "Add
/// files…" (a file dialog) and "Remove" (the selected ones). Files dropped on the run pane are
/// added through addFiles(). A path already listed is not added twice; names that clash are
/// refused when the run starts (checkInputFiles()).
class InputFilesList : public QWidget
{
    Q_OBJECT

public:
    explicit InputFilesList(QWidget* parent = nullptr);

    QStringList files() const { return m_files; }
    /// Adds the local files among `paths` (folders are skipped); returns how many were added.
    int addFiles(const QStringList& paths);
    void removeFile(const QString& path);
    void clearFiles();

    QListWidget* listWidget() const { return m_list; }
    QPushButton* addButton() const { return m_add; }
    QPushButton* removeButton() const { return m_remove; }

Q_SIGNALS:
    void filesChanged();

private:
    void refresh();

    QStringList m_files;
    QListWidget* m_list;
    QPushButton* m_add;
    QPushButton* m_remove;
};

} // namespace sbw
