#include "log/CommandLogPane.h"

#include "base/Async.h"
#include "base/GuestTextDecoder.h"
#include "base/VisibleText.h"
#include "log/CommandLogExport.h"
#include "log/CommandLogModel.h"
#include "log/FileChangesText.h"
#include "widgets/MonospaceFont.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace sbw {
namespace {

constexpr int kExportLimit = 100000;

QString shownOutput(const QByteArray& bytes)
{
    GuestTextDecoder decoder;
    QString text = decoder.decode(bytes); // before finish(): the operands of + have no order
    return makeVisible(text + decoder.finish());
}

} // namespace

CommandLogPane::CommandLogPane(std::shared_ptr<CommandLog> log, QWidget* parent)
    : QWidget(parent), m_log(std::move(log)), m_model(new CommandLogModel(m_log, this)),
      m_table(new RowTableView(this)), m_detail(new QPlainTextEdit(this)), m_search(new QLineEdit(this)),
      m_sandbox(new QComboBox(this)), m_actor(new QComboBox(this)), m_outcome(new QComboBox(this)),
      m_status(new QLabel(this))
{
    m_search->setPlaceholderText(tr("Search commands and errors"));
    m_search->setClearButtonEnabled(true);
    m_sandbox->addItem(tr("All sandboxes"), QString());
    m_actor->addItem(tr("All actors"), QString());
    for (Actor::Kind kind : {Actor::Kind::Person, Actor::Kind::Agent, Actor::Kind::Cli, Actor::Kind::Workbench,
                             Actor::Kind::Guest})
        m_actor->addItem(Actor::kindName(kind), Actor::kindName(kind));
    m_outcome->addItem(tr("Any status"), QString());
    for (Outcome outcome : {Outcome::Running, Outcome::Succeeded, Outcome::Failed, Outcome::TimedOut,
                            Outcome::Cancelled, Outcome::Denied, Outcome::Error, Outcome::Interrupted})
        m_outcome->addItem(outcomeName(outcome), outcomeName(outcome));

    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(exportButton);
    exportMenu->addAction(tr("JSON Lines…"), this, [this] { chooseExport(Format::JsonLines); });
    exportMenu->addAction(tr("CSV…"), this, [this] { chooseExport(Format::Csv); });
    exportButton->setMenu(exportMenu);

    auto* filters = new QHBoxLayout;
    filters->addWidget(m_search, 1);
    filters->addWidget(m_sandbox);
    filters->addWidget(m_actor);
    filters->addWidget(m_outcome);
    filters->addWidget(exportButton);

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    // The command takes the room, at least 30 characters of it; the other columns fit their
    // texts up to a cap (fitColumns).
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setReadableColumn(CommandLogModel::Command, fontMetrics().averageCharWidth() * 30);
    // End, folder, output sizes and network figures are in the detail; the header's context menu
    // shows their columns.
    QHeaderView* header = m_table->horizontalHeader();
    header->setContextMenuPolicy(Qt::ActionsContextMenu);
    for (int column = 0; column < m_model->columnCount(); ++column) {
        if (column == CommandLogModel::Command)
            continue;
        auto* toggle = new QAction(m_model->headerData(column, Qt::Horizontal).toString(), header);
        toggle->setCheckable(true);
        toggle->setData(column);
        connect(toggle, &QAction::toggled, header, [header, column](bool on) { header->setSectionHidden(column, !on); });
        header->addAction(toggle);
    }
    showColumns({CommandLogModel::Id, CommandLogModel::Started, CommandLogModel::Sandbox, CommandLogModel::ActorColumn,
                 CommandLogModel::Action, CommandLogModel::Status, CommandLogModel::Duration,
                 CommandLogModel::ApprovalColumn});
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() +
                              m_table->verticalHeader()->defaultSectionSize() * 3 + m_table->frameWidth() * 2);

    m_detail->setReadOnly(true);
    m_detail->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_detail->setFont(monospaceFont());
    m_detail->setPlaceholderText(tr("Select a row to see its whole command and output."));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(
        QStringLiteral("commandLogSplitter")); // its sizes are kept (MainWindow)
    splitter->addWidget(m_table);
    splitter->addWidget(m_detail);
    splitter->setChildrenCollapsible(false);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({fontMetrics().height() * 14, fontMetrics().height() * 5}); // rows first
    m_detail->setMinimumHeight(fontMetrics().lineSpacing() * 3 + m_detail->frameWidth() * 2);

    m_status->setTextFormat(Qt::PlainText);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);

    connect(m_search, &QLineEdit::textChanged, this, &CommandLogPane::applyFilter);
    for (QComboBox* box : {m_sandbox, m_actor, m_outcome})
        connect(box, &QComboBox::currentIndexChanged, this, &CommandLogPane::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (!m_reselecting)
            showDetail();
    });
    // New rows arrive by a model reset: the selected row stays selected (by its id) while it
    // still matches the filter.
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        const QModelIndex current = m_table->currentIndex();
        m_selectedId = current.isValid() ? m_model->record(current.row()).id : 0;
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        reselect();
        updateSandboxChoices();
        fitColumns();
        m_status->setText(m_model->lastError().isEmpty() ? tr("%n row(s)", nullptr, m_model->rowCount())
                                                         : m_model->lastError());
    });
    updateSandboxChoices();
    m_status->setText(tr("%n row(s)", nullptr, m_model->rowCount()));
}

QSize CommandLogPane::sizeHint() const
{
    // Room for about eight rows and the start of the detail when the dock opens.
    return {QWidget::sizeHint().width(), fontMetrics().height() * 22};
}

void CommandLogPane::setScope(const QString& sandbox, ActionKind kind)
{
    m_scopeKind = kind;
    m_sandbox->clear();
    m_sandbox->addItem(makeVisible(sandbox), sandbox);
    m_sandbox->hide();
    applyFilter();
}

void CommandLogPane::showColumns(const QList<int>& columns)
{
    QHeaderView* header = m_table->horizontalHeader();
    for (QAction* toggle : header->actions()) {
        const int column = toggle->data().toInt();
        toggle->setChecked(columns.contains(column));
        header->setSectionHidden(column, !columns.contains(column));
    }
}

void CommandLogPane::fitColumns()
{
    QHeaderView* header = m_table->horizontalHeader();
    const int character = fontMetrics().averageCharWidth();
    for (int column = 0; column < m_model->columnCount(); ++column) {
        if (column == CommandLogModel::Command)
            continue;
        // The start time whole; other texts up to 14 characters (the whole text is in the detail).
        m_table->resizeColumnToContents(column);
        // A capped column still shows its whole header.
        const int cap = std::max(character * 14, header->sectionSizeHint(column));
        if (column != CommandLogModel::Started && header->sectionSize(column) > cap)
            header->resizeSection(column, cap);
    }
}

void CommandLogPane::reselect()
{
    if (m_selectedId == 0)
        return;
    const QList<ActionRecord>& rows = m_model->records();
    for (int row = 0; row < rows.size(); ++row) {
        if (rows.at(row).id == m_selectedId) {
            m_reselecting = true; // the detail already shows it
            m_table->selectRow(row);
            m_reselecting = false;
            return;
        }
    }
    showDetail(); // it left the filter: nothing is selected
}

void CommandLogPane::updateSandboxChoices()
{
    if (m_scopeKind)
        return;
    for (const QString& name : m_model->sandboxes()) {
        if (m_sandbox->findData(name) < 0)
            m_sandbox->addItem(makeVisible(name), name);
    }
}

void CommandLogPane::applyFilter()
{
    LogFilter filter;
    filter.sandbox = m_sandbox->currentData().toString();
    filter.actor = Actor::kindFromName(m_actor->currentData().toString());
    filter.outcome = outcomeFromName(m_outcome->currentData().toString());
    filter.kind = m_scopeKind;
    filter.text = m_search->text();
    m_model->setFilter(filter);
}

void CommandLogPane::showDetail()
{
    const QModelIndex current = m_table->currentIndex();
    ++m_detailReads;
    if (!current.isValid()) {
        m_detail->clear();
        return;
    }
    const ActionRecord r = m_model->record(current.row());
    QString text;
    text += tr("#%1  %2 by %3 on %4\n").arg(r.id).arg(actionKindName(r.kind), makeVisible(r.actor.display()), makeVisible(r.sandbox));
    text += tr("started %1 UTC").arg(r.started.toString(Qt::ISODateWithMs));
    if (r.ended.isValid())
        text += tr(", ended %1, %2 ms").arg(r.ended.toString(Qt::ISODateWithMs)).arg(r.durationMs);
    text += tr("\nstatus: %1; approval: %2\n").arg(r.statusText(), makeVisible(r.approvalText()));
    if (!r.workdir.isEmpty())
        text += tr("folder: %1\n").arg(makeVisible(r.workdir));
    if (r.kind == ActionKind::Network)
        text += tr("server address: %1; sent %2 bytes, received %3 bytes\n")
                    .arg(r.networkAddress.isEmpty() ? tr("none (not connected)") : r.networkAddress)
                    .arg(r.bytesSent)
                    .arg(r.bytesReceived);
    if (r.kind == ActionKind::Browse)
        text += tr("page before: %1\npage after: %2\n")
                    .arg(r.urlBefore.isEmpty() ? tr("(none)") : makeVisible(r.urlBefore),
                         r.urlAfter.isEmpty() ? tr("(none)") : makeVisible(r.urlAfter));
    if (!r.artifactsDir.isEmpty())
        text += tr("files: %1\n").arg(makeVisible(r.artifactsDir));
    text += QStringLiteral("\n") + makeVisible(r.command) + QStringLiteral("\n");
    const bool wantsOutput = r.outcome != Outcome::Running && (r.stdoutBytes > 0 || r.stderrBytes > 0);
    // The model's rows list the changed files without the diffs' text (CommandLog::rows()).
    const bool wantsDiffs = std::any_of(r.fileChanges.files.cbegin(), r.fileChanges.files.cend(),
                                        [](const FileChange& file) { return file.hasDiff; });
    if (!wantsOutput && !wantsDiffs) {
        m_detail->setPlainText(text + outputSections(r, QByteArray(), QByteArray()) + fileChangesText(r.fileChanges));
        Q_EMIT detailShown();
        return;
    }
    m_detail->setPlainText(text + tr("\n(reading the output…)"));
    // The output and diffs are read off the GUI thread; a newer selection overtakes them.
    struct Read
    {
        Expected<QByteArray> out;
        Expected<QByteArray> err;
        FileChanges changes;
    };
    const quint64 read = m_detailReads;
    auto readOutputs = [log = m_log, r, wantsDiffs]() -> Read {
        const auto read = [&](OutputStream stream, qint64 bytes) -> Expected<QByteArray> {
            return bytes > 0 ? log->output(r.id, stream) : Expected<QByteArray>(QByteArray());
        };
        const auto whole = wantsDiffs ? log->row(r.id) : Expected<ActionRecord>(r);
        return {read(OutputStream::Stdout, r.stdoutBytes), read(OutputStream::Stderr, r.stderrBytes),
                whole ? whole->fileChanges : r.fileChanges};
    };
    runThen(this, std::move(readOutputs), [this, read, r, text](const Read& outputs) {
        if (read != m_detailReads)
            return;
        m_detail->setPlainText(text + outputSections(r, outputs.out, outputs.err) + fileChangesText(outputs.changes));
        Q_EMIT detailShown();
    });
}

QString CommandLogPane::outputSections(const ActionRecord& r, const Expected<QByteArray>& out,
                                       const Expected<QByteArray>& err) const
{
    QString text;
    for (OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr}) {
        const bool isOut = stream == OutputStream::Stdout;
        const qint64 bytes = isOut ? r.stdoutBytes : r.stderrBytes;
        if (bytes == 0)
            continue;
        text += isOut ? tr("\n── stdout (%n byte(s)) ──\n", nullptr, int(bytes)) : tr("\n── stderr (%n byte(s)) ──\n", nullptr, int(bytes));
        if (r.outcome == Outcome::Running) {
            text += tr("(shown when the action ends)\n");
            continue;
        }
        const Expected<QByteArray>& output = isOut ? out : err;
        text += output ? shownOutput(output.value()) : output.error().message;
    }
    return text;
}

Expected<void> CommandLogPane::exportTo(const QString& path, Format format) const
{
    const auto rows = m_log->rows(m_model->filter(), kExportLimit);
    if (!rows)
        return rows.error();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return makeError(tr("Cannot write %1: %2").arg(path, file.errorString()));
    file.write(format == Format::Csv ? toCsv(rows.value()) : toJsonLines(rows.value()));
    if (!file.commit())
        return makeError(tr("Cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

void CommandLogPane::chooseExport(Format format)
{
    const bool csv = format == Format::Csv;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export command log"), csv ? QStringLiteral("command-log.csv") : QStringLiteral("command-log.jsonl"),
        csv ? tr("CSV (*.csv)") : tr("JSON Lines (*.jsonl)"));
    if (path.isEmpty())
        return;
    if (auto written = exportTo(path, format); !written)
        QMessageBox::warning(this, tr("Export command log"), written.error().message);
    else
        m_status->setText(tr("Exported to %1").arg(path));
}

} // namespace sbw
