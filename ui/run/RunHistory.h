#pragma once

#include "run/RunArtifacts.h"

#include <QDateTime>
#include <QWidget>

#include <memory>

class QListWidget;

namespace sbw {

class ArtifactsView;
class CommandLog;

/// Earlier ephemeral runs and the files they gave back: a list of runs, newest first (the
/// command log's Run rows when a log is set, else the per-run folders under runsFolder()), and
/// beside it the selected run's artifacts in an ArtifactsView, read from the folder its
/// command-log row links to.
class RunHistory : public QWidget
{
    Q_OBJECT

public:
    /// One earlier run.
    struct Entry
    {
        QString domainName;
        QDateTime started;   ///< UTC; invalid when only the folder is known
        QString outcome;     ///< "succeeded", "failed" …; empty when only the folder is known
        QString artifactsDir; ///< empty when no files came back
        QString title;        ///< what the script is: its "# Example:" title or first line; may be empty
    };
    static constexpr int kMaxEntries = 200;

    explicit RunHistory(QWidget* parent = nullptr);
    ~RunHistory() override;

    void setCommandLog(std::shared_ptr<CommandLog> log);
    /// Reads the list again (the selection is kept when its run is still listed).
    void refresh();

    const QList<Entry>& entries() const { return m_entries; }
    /// Shows the artifacts of entries()[index].
    void select(int index);

    QListWidget* listWidget() const { return m_list; }
    ArtifactsView* artifactsView() const { return m_artifacts; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    QList<Entry> readEntries() const;
    void showSelected();

    std::shared_ptr<CommandLog> m_log;
    QList<Entry> m_entries;
    QListWidget* m_list;
    ArtifactsView* m_artifacts;
};

} // namespace sbw
