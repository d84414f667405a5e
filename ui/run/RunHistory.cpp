#include "run/RunHistory.h"

#include "base/VisibleText.h"
#include "log/CommandLog.h"
#include "run/ArtifactsView.h"

#include <QDir>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace sbw {

RunHistory::RunHistory(QWidget* parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_artifacts(new ArtifactsView)
{
    m_list->setObjectName(QStringLiteral("runHistory"));
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_artifacts);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(
        QStringLiteral("runHistorySplitter")); // its sizes are kept (MainWindow)
    splitter->addWidget(m_list);
    splitter->addWidget(scroll);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    connect(m_list, &QListWidget::currentRowChanged, this, &RunHistory::showSelected);
}

RunHistory::~RunHistory() = default;

void RunHistory::setCommandLog(std::shared_ptr<CommandLog> log)
{
    m_log = std::move(log);
    if (isVisible())
        refresh();
}

namespace {

/// What a run's script is, for its line in the list: an example's "# Example:" title, else its
/// first line that is not blank, a comment or a #! line; escapes visible, at most 40 characters.
QString scriptTitle(const QString& script)
{
    static const QLatin1String example("# Example:");
    QString first;
    for (const QString& line : script.split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        if (trimmed.startsWith(example))
            return oneLineVisible(trimmed.mid(example.size()).trimmed(), 40);
        if (first.isEmpty() && !trimmed.isEmpty() && !trimmed.startsWith(QLatin1Char('#')))
            first = trimmed;
    }
    return oneLineVisible(first, 40);
}

} // namespace

QList<RunHistory::Entry> RunHistory::readEntries() const
{
    QList<Entry> entries;
    if (m_log) {
        auto rows = m_log->rows({}, 5 * kMaxEntries);
        if (rows) {
            for (const ActionRecord& row : rows.value()) {
                if (row.kind != ActionKind::Run || entries.size() >= kMaxEntries)
                    continue;
                entries.append({row.sandbox, row.started, outcomeName(row.outcome), row.artifactsDir,
                                scriptTitle(row.command)});
            }
            return entries;
        }
    }
    QDir runs(runsFolder());
    const QStringList names = runs.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
    for (const QString& name : names.mid(0, kMaxEntries))
        entries.append({name, {}, {}, runs.filePath(name + QStringLiteral("/out")), {}});
    return entries;
}

void RunHistory::refresh()
{
    const QString selected = m_list->currentRow() >= 0 ? m_entries.value(m_list->currentRow()).domainName : QString();
    m_entries = readEntries();
    QSignalBlocker block(m_list);
    m_list->clear();
    int keep = -1;
    for (const Entry& entry : m_entries) {
        QString text = entry.started.isValid() ? entry.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                                               : entry.domainName;
        if (!entry.outcome.isEmpty())
            text += tr(" · %1").arg(entry.outcome);
        const int files = entry.artifactsDir.isEmpty() ? 0 : int(artifactsIn(entry.artifactsDir).size());
        text += files == 1 ? tr(" · 1 file") : tr(" · %1 files").arg(files);
        if (!entry.title.isEmpty())
            text += tr(" · %1").arg(entry.title);
        auto* item = new QListWidgetItem(text, m_list);
        item->setToolTip(entry.domainName);
        if (entry.domainName == selected)
            keep = m_list->count() - 1;
    }
    m_list->setCurrentRow(keep);
    showSelected();
}

void RunHistory::select(int index)
{
    m_list->setCurrentRow(index);
}

void RunHistory::showSelected()
{
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_entries.size()) {
        m_artifacts->clear();
        return;
    }
    const Entry& entry = m_entries.at(row);
    const QList<RunArtifact> artifacts = entry.artifactsDir.isEmpty() ? QList<RunArtifact>() : artifactsIn(entry.artifactsDir);
    m_artifacts->setArtifacts(artifacts,
                              artifacts.isEmpty() ? tr("No files came back from this run.") : QString(),
                              tr("Files from %1").arg(entry.domainName));
}

void RunHistory::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

} // namespace sbw
