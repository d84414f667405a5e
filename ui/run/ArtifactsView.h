#pragma once

#include "run/RunArtifacts.h"

#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace sbw {

/// The files a run gave back (RunResult::artifacts), one block each in name order: PNG, JPEG
/// and SVG files as pictures (scaled down to kMaxImageWidth), CSV files as a table
/// (CsvTableModel in a QTableView), every file with its name, size and Open (the desktop's
/// application for it) and Save As… buttons. A note above them says what did not come back
/// (RunResult::artifactsNote). Names and notes come from the guest and are shown escaped.
/// Pictures and tables are read from the host copies when set; files larger than
/// kMaxPreviewBytes are listed without a preview.
class ArtifactsView : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kMaxImageWidth = 720;
    static constexpr qint64 kMaxPreviewBytes = 16 * 1024 * 1024;

    explicit ArtifactsView(QWidget* parent = nullptr);

    /// Shows `artifacts` and `note` in place of what was shown; `title` heads the list (e.g.
    /// "Files from the run (out/)").
    void setArtifacts(const QList<RunArtifact>& artifacts, const QString& note,
                      const QString& title);
    void clear();

    const QList<RunArtifact>& artifacts() const { return m_artifacts; }
    bool isEmpty() const { return m_artifacts.isEmpty() && m_noteText.isEmpty(); }

private:
    QWidget* makeBlock(const RunArtifact& artifact);
    void saveAs(const RunArtifact& artifact);

    QList<RunArtifact> m_artifacts;
    QString m_noteText;
    QLabel* m_title;
    QLabel* m_note;
    QWidget* m_blocks;
    QVBoxLayout* m_blocksLayout;
};

} // namespace sbw
