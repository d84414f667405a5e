#include "approval/ApprovalQueuePane.h"

#include "approval/PreviewText.h"
#include "approval/TerminalApprover.h"
#include "base/Async.h"
#include "base/VisibleText.h"
#include "changes/UnifiedDiff.h"
#include "guest/LoopbackClientProbe.h"
#include "preview/ActionPreview.h"
#include "run/RunInputFiles.h"
#include "widgets/MonospaceFont.h"
#include "widgets/WholeHeaders.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QSystemTrayIcon>
#include <QTextOption>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sbw {
namespace {

constexpr int kIdRole = Qt::UserRole;

/// The Who column, compact: the client's name ("claude-code"), "guest: python3" for a guest
/// program the proxy named (GuestProgram::actorName()), or the kind ("person", "guest") when
/// there is no name to show (a guest's unnamed program is only its port).
QString whoAsks(const Actor& actor)
{
    if (actor.kind == Actor::Kind::Guest) {
        const QString program = GuestProgram::nameOfActor(actor.name);
        return program.isEmpty() ? Actor::kindName(actor.kind) : QStringLiteral("guest: %1").arg(program);
    }
    return actor.name.isEmpty() ? Actor::kindName(actor.kind) : actor.name;
}


/// The list's subject: the command alone for exec (its variables are in the detail), else
/// actionSubject().
QString subjectOf(const ActionRequest& request)
{
    if (request.kind == ActionKind::Exec || request.kind == ActionKind::Run)
        return request.command;
    return actionSubject(request);
}

constexpr qsizetype kSubjectChars = 200; ///< of a command in the list and notifications

/// "\ncommands the policy found:\n  ls -la — allowed by policy rule 1 (exec \"ls *\")\n…", one
/// line each; empty without commands.
QString commandsText(const QList<CommandVerdict>& commands)
{
    if (commands.isEmpty())
        return {};
    QString text = ApprovalQueuePane::tr("\ncommands the policy found:\n");
    for (const CommandVerdict& command : commands)
        text += QStringLiteral("  %1 — %2\n")
                    .arg(oneLineVisible(command.command), oneLineVisible(command.explanation()));
    return text;
}

QString timeLeft(const QDeadlineTimer& deadline)
{
    const qint64 seconds = (deadline.remainingTime() + 999) / 1000;
    return QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

bool isApproveKey(const QKeyEvent* key)
{
    return (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) && (key->modifiers() & Qt::ControlModifier);
}

bool isDenyKey(const QKeyEvent* key, bool inList)
{
    if (key->key() == Qt::Key_Backspace && (key->modifiers() & Qt::ControlModifier))
        return true;
    return inList && key->key() == Qt::Key_Delete && key->modifiers() == Qt::NoModifier;
}

} // namespace

ApprovalQueuePane::ApprovalQueuePane(ApprovalQueue* queue, QWidget* parent)
    : QWidget(parent), m_queue(queue), m_approver(TerminalApprover::localUserName()), m_list(new QTreeWidget(this)),
      m_detail(new QPlainTextEdit(this)), m_reason(new QLineEdit(this)),
      m_approve(new QPushButton(tr("Approve"), this)), m_allowAlways(new QPushButton(tr("Allow Always"), this)),
      m_deny(new QPushButton(tr("Deny"), this)),
      m_edit(new QPushButton(tr("Edit…"), this)), m_preview(new QPushButton(tr("Preview"), this)),
      m_approvePreviewed(new QPushButton(tr("Approve as Previewed"), this)), m_empty(new QLabel(tr("No action waits for approval."), this)),
      m_clock(new QTimer(this))
{
    m_list->setHeaderLabels({tr("Who"), tr("Workspace"), tr("Action"), tr("Command or path"), tr("Time left")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    // A narrow dock shows who, what and the time left; the workspace and the whole actor are in
    // the tooltip and the detail box (the header's context menu shows the Workspace column).
    QHeaderView* header = m_list->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(Subject, QHeaderView::Stretch);
    header->setSectionResizeMode(Action, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TimeLeft, QHeaderView::ResizeToContents);
    header->setSectionHidden(Workspace, true);
    header->setContextMenuPolicy(Qt::ActionsContextMenu);
    for (const int column : {Who, Workspace, Action, TimeLeft}) {
        auto* toggle = new QAction(m_list->headerItem()->text(column), header);
        toggle->setCheckable(true);
        toggle->setChecked(!header->isSectionHidden(column));
        connect(toggle, &QAction::toggled, header, [this, header, column](bool on) {
            header->setSectionHidden(column, !on);
            keepHeadersWhole(m_list, header);
        });
        header->addAction(toggle);
    }
    fitColumns();
    m_list->setMinimumHeight(header->sizeHint().height() + fontMetrics().lineSpacing() * 3);
    m_detail->setReadOnly(true);
    // A few lines of a multi-line command; more by the splitter, the rest by the scroll bar.
    m_detail->setMinimumHeight(fontMetrics().lineSpacing() * 5 + m_detail->frameWidth() * 2);
    // Long commands wrap in a narrow dock rather than widen it.
    m_detail->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_detail->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_detail->setFont(monospaceFont());
    m_reason->setPlaceholderText(tr("Reason for a denial (returned to the agent or program)"));
    m_reason->setClearButtonEnabled(true);
    m_approve->setToolTip(tr("Approve the selected action (Ctrl+Return)"));
    m_deny->setToolTip(tr("Deny the selected action with the reason (Ctrl+Backspace, or Delete in the list)"));
    m_edit->setToolTip(tr("Edit the command or content, then approve"));
    m_allowAlways->setToolTip(tr("Allow this host and port from now on: a rule in the workspace's policy"));
    m_preview->setToolTip(tr("Run it in a throwaway fork of the workspace and show what it does; the workspace is untouched"));
    m_approvePreviewed->setToolTip(
        tr("Approve, and make the workspace the preview's result instead of running it again"));

    auto* buttons = new QHBoxLayout; // under the reason field, so that neither squeezes the other
    buttons->addStretch(1);
    buttons->addWidget(m_deny);
    buttons->addWidget(m_edit);
    buttons->addWidget(m_preview);
    buttons->addWidget(m_approvePreviewed);
    buttons->addWidget(m_allowAlways);
    buttons->addWidget(m_approve);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("approvalSplitter")); // its sizes are kept (MainWindow)
    splitter->addWidget(m_list);
    splitter->addWidget(m_detail);
    splitter->setChildrenCollapsible(false);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_empty->setWordWrap(true);
    layout->addWidget(m_empty);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_reason);
    layout->addLayout(buttons);

    for (QWidget* widget : {static_cast<QWidget*>(m_list), static_cast<QWidget*>(m_detail),
                            static_cast<QWidget*>(m_reason), static_cast<QWidget*>(m_approve),
                            static_cast<QWidget*>(m_deny), static_cast<QWidget*>(m_edit),
                            static_cast<QWidget*>(m_allowAlways)})
        widget->installEventFilter(this);

    connect(m_approve, &QPushButton::clicked, this, &ApprovalQueuePane::approveCurrent);
    connect(m_deny, &QPushButton::clicked, this, &ApprovalQueuePane::denyCurrent);
    connect(m_edit, &QPushButton::clicked, this, &ApprovalQueuePane::editCurrent);
    connect(m_allowAlways, &QPushButton::clicked, this, &ApprovalQueuePane::allowCurrentAlways);
    connect(m_preview, &QPushButton::clicked, this, &ApprovalQueuePane::previewCurrent);
    connect(m_approvePreviewed, &QPushButton::clicked, this, &ApprovalQueuePane::approveCurrentAsPreviewed);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] {
        showDetail();
        updateButtons();
    });
    connect(m_clock, &QTimer::timeout, this, &ApprovalQueuePane::updateTimes);
    m_clock->start(1000);
    connect(queue, &ApprovalQueue::added, this, &ApprovalQueuePane::onAdded);
    connect(queue, &ApprovalQueue::decided, this, &ApprovalQueuePane::onDecided);
    for (const PendingApproval& pending : queue->pending())
        onAdded(pending.id);
    updateButtons();
}

ApprovalQueuePane::~ApprovalQueuePane()
{
    while (!m_previews.empty())
        dropPreview(m_previews.begin()->first);
}

void ApprovalQueuePane::setPreviewRunner(PreviewRunner runner)
{
    m_previewRunner = std::move(runner);
    updateButtons();
}

bool ApprovalQueuePane::canPreview(const std::optional<PendingApproval>& pending) const
{
    return pending && m_previewRunner && !pending->request.sandbox.isEmpty() &&
           (pending->request.kind == ActionKind::Exec || pending->request.kind == ActionKind::FileWrite);
}

void ApprovalQueuePane::previewCurrent()
{
    const qint64 id = currentId();
    const auto pending = m_queue && id ? m_queue->find(id) : std::nullopt;
    if (!canPreview(pending) || m_previewing.count(id))
        return;
    dropPreview(id);
    m_previewing.insert(id);
    updateButtons();
    m_detail->appendPlainText(tr("\nPreviewing in a fork of %1…").arg(oneLineVisible(pending->request.sandbox)));
    onFinished(m_previewRunner(pending->request), this,
               [this, id](const Expected<std::shared_ptr<ActionPreview>>& preview) {
        m_previewing.erase(id);
        if (!m_queue || !m_queue->find(id)) {
            // Decided while it ran: its fork goes at once.
            if (preview)
                runAsync([doomed = preview.value()]() mutable { doomed.reset(); });
            return;
        }
        if (preview)
            m_previews[id] = preview.value();
        if (id == m_detailId) {
            showDetail();
            if (!preview)
                m_detail->appendPlainText(tr("\nThe preview failed: %1").arg(makeVisible(preview.error().message)));
        }
        updateButtons();
    });
}

void ApprovalQueuePane::approveCurrentAsPreviewed()
{
    const qint64 id = currentId();
    const auto found = m_previews.find(id);
    if (found == m_previews.end() || !m_queue || !m_queue->find(id))
        return;
    std::shared_ptr<ActionPreview> preview = found->second;
    m_previewing.insert(id); // no second preview or adoption meanwhile
    updateButtons();
    m_detail->appendPlainText(tr("\nMaking the workspace the preview's result…"));
    runThen(this, [preview] { return preview->adopt(); }, [this, id](const Expected<PreviewedOutcome>& outcome) {
        m_previewing.erase(id);
        if (outcome) {
            m_previews.erase(id);
            if (m_queue)
                m_queue->approveAsPreviewed(id, outcome.value(), m_approver);
        } else {
            QMessageBox::warning(this, tr("Approve as Previewed"),
                                 tr("The workspace did not take the preview's result, and the action still waits: %1")
                                     .arg(outcome.error().message));
        }
        updateButtons();
    });
}

void ApprovalQueuePane::dropPreview(qint64 id)
{
    const auto found = m_previews.find(id);
    if (found == m_previews.end())
        return;
    // Deleting a fork blocks on libvirt: the last reference goes on a worker thread.
    runAsync([doomed = std::move(found->second)]() mutable { doomed.reset(); });
    m_previews.erase(found);
}

QString ApprovalQueuePane::withPreview(qint64 id, const QString& text) const
{
    const auto found = m_previews.find(id);
    return found == m_previews.end() ? text : text + previewReportText(found->second->report());
}

QSize ApprovalQueuePane::sizeHint() const
{
    return {fontMetrics().averageCharWidth() * 56, QWidget::sizeHint().height()};
}

qint64 ApprovalQueuePane::currentId() const
{
    const QTreeWidgetItem* item = m_list->currentItem();
    return item ? item->data(Who, kIdRole).toLongLong() : 0;
}

void ApprovalQueuePane::approveCurrent()
{
    if (const qint64 id = currentId(); id && m_queue)
        m_queue->approve(id, m_approver);
}

void ApprovalQueuePane::setDestinationRuleWriter(DestinationRuleWriter writer)
{
    m_ruleWriter = std::move(writer);
    updateButtons();
}

void ApprovalQueuePane::allowCurrentAlways()
{
    const qint64 id = currentId();
    const auto pending = m_queue && id ? m_queue->find(id) : std::nullopt;
    if (!pending || pending->request.kind != ActionKind::Network || !m_ruleWriter)
        return;
    const ActionRequest& request = pending->request;
    if (auto written = m_ruleWriter(request.sandbox, request.destination, PolicyDecision::Allow); !written)
        QMessageBox::warning(this, tr("Allow Always"),
                             tr("The rule for %1 was not added, and the connection still waits: %2")
                                 .arg(request.destination.display(), written.error().message));
}

void ApprovalQueuePane::denyCurrent()
{
    if (const qint64 id = currentId(); id && m_queue) {
        if (m_queue->deny(id, m_approver, m_reason->text().trimmed()))
            m_reason->clear();
    }
}

void ApprovalQueuePane::editCurrent()
{
    const qint64 id = currentId();
    const auto pending = m_queue && id ? m_queue->find(id) : std::nullopt;
    if (!pending)
        return;
    const bool content = pending->request.kind == ActionKind::FileWrite;
    QDialog dialog(this);
    dialog.setWindowTitle(content ? tr("Edit the new content") : tr("Edit the command"));
    auto* editor = new QPlainTextEdit(&dialog);
    editor->setFont(monospaceFont());
    editor->setPlainText(content ? QString::fromUtf8(pending->request.content) : pending->request.command);
    auto* box = new QDialogButtonBox(QDialogButtonBox::Cancel, &dialog);
    box->addButton(tr("Approve Edited"), QDialogButtonBox::AcceptRole);
    connect(box, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(editor);
    layout->addWidget(box);
    dialog.resize(700, 400);
    if (dialog.exec() != QDialog::Accepted || !m_queue)
        return;
    ActionRequest edited = pending->request;
    if (content)
        edited.content = editor->toPlainText().toUtf8();
    else
        edited.command = editor->toPlainText();
    m_queue->approveEdited(id, edited, m_approver); // false when it was decided meanwhile
}

bool ApprovalQueuePane::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::ShortcutOverride && event->type() != QEvent::KeyPress)
        return QWidget::eventFilter(watched, event);
    auto* key = static_cast<QKeyEvent*>(event);
    const bool approve = isApproveKey(key);
    const bool deny = isDenyKey(key, watched == m_list);
    if (!approve && !deny)
        return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::ShortcutOverride) { // ours, not the window's Run shortcut
        event->accept();
        return true;
    }
    if (approve)
        approveCurrent();
    else
        denyCurrent();
    return true;
}

void ApprovalQueuePane::onAdded(qint64 id)
{
    const auto pending = m_queue ? m_queue->find(id) : std::nullopt;
    if (!pending)
        return;
    const ActionRequest& request = pending->request;
    auto* item = new QTreeWidgetItem(m_list);
    item->setData(Who, kIdRole, id);
    const QString workspace = request.sandbox.isEmpty() ? tr("(new run)") : oneLineVisible(request.sandbox);
    item->setText(Who, oneLineVisible(whoAsks(request.actor)));
    item->setText(Workspace, workspace);
    item->setToolTip(Who, tr("%1\nworkspace: %2").arg(makeVisible(request.actor.display()), workspace));
    item->setText(Action, actionKindName(request.kind));
    item->setText(Subject, oneLineVisible(subjectOf(request), kSubjectChars));
    item->setToolTip(Subject, makeVisible(subjectOf(request).left(2000)));
    item->setText(TimeLeft, timeLeft(pending->deadline));
    fitColumns();
    if (!m_list->currentItem())
        m_list->setCurrentItem(item);
    updateButtons();
    notify(*pending);
}

void ApprovalQueuePane::onDecided(qint64 id)
{
    dropPreview(id);
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        if (m_list->topLevelItem(i)->data(Who, kIdRole).toLongLong() == id) {
            delete m_list->takeTopLevelItem(i);
            break;
        }
    }
    if (!m_list->currentItem() && m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0));
    showDetail();
    updateButtons();
}

void ApprovalQueuePane::showDetail()
{
    const qint64 id = currentId();
    const auto pending = m_queue && id ? m_queue->find(id) : std::nullopt;
    m_detailId = pending ? id : 0;
    if (!pending) {
        m_detail->clear();
        return;
    }
    const ActionRequest& request = pending->request;
    QString text = tr("%1 asks: %2").arg(oneLineVisible(request.actor.display()), actionKindName(request.kind));
    if (!request.sandbox.isEmpty())
        text += tr(" in workspace %1").arg(oneLineVisible(request.sandbox));
    text += QLatin1Char('\n');
    if (!request.workdir.isEmpty())
        text += tr("folder: %1\n").arg(oneLineVisible(request.workdir));
    for (const QString& variable : request.environment)
        text += tr("environment: %1\n").arg(oneLineVisible(variable));
    if (!request.language.isEmpty())
        text += tr("language: %1\n").arg(oneLineVisible(request.language));
    if (!request.path.isEmpty())
        text += tr("path: %1\n").arg(oneLineVisible(request.path));
    if (!request.inputFiles.isEmpty())
        text += tr("input files: %1\n").arg(oneLineVisible(inputFilesText(request.inputFiles)));
    if (!request.command.isEmpty())
        text += QLatin1Char('\n') + makeVisible(request.command) + QLatin1Char('\n');
    text += commandsText(pending->commands);
    if (request.kind != ActionKind::FileWrite) {
        m_detail->setPlainText(withPreview(id, text));
        return;
    }
    m_detail->setPlainText(text + tr("\nreading the current content for the diff…"));
    if (!m_reader) {
        showDiff(id, {}, tr("current content unknown (no guest connection); diff against an empty file"));
        return;
    }
    onFinished(m_reader(request.sandbox, request.path, kDiffCapBytes), this,
               [this, id](const Expected<CurrentContent>& current) {
        if (!current)
            showDiff(id, {}, tr("current content unavailable (%1); diff against an empty file")
                                 .arg(makeVisible(current.error().message)));
        else if (!current->bytes || current->size > kDiffCapBytes)
            showNewContent(id, tr("file too large to diff (%1 bytes)").arg(current->size));
        else
            showDiff(id, *current->bytes, {});
    });
}

QString ApprovalQueuePane::fileWriteHeader(const ActionRequest& request) const
{
    return tr("%1 asks: file-write in workspace %2\npath: %3\nnew content: %4 bytes\n")
        .arg(oneLineVisible(request.actor.display()), oneLineVisible(request.sandbox), oneLineVisible(request.path))
        .arg(request.content.size());
}

void ApprovalQueuePane::showNewContent(qint64 id, const QString& note)
{
    const auto pending = m_queue ? m_queue->find(id) : std::nullopt;
    if (!pending || id != m_detailId)
        return;
    m_detail->setPlainText(withPreview(id, fileWriteHeader(pending->request) + note + QStringLiteral("\n\n") +
                                               makeVisible(QString::fromUtf8(pending->request.content))));
}

void ApprovalQueuePane::showDiff(qint64 id, const QByteArray& current, const QString& note)
{
    const auto pending = m_queue ? m_queue->find(id) : std::nullopt;
    if (!pending || id != m_detailId)
        return;
    const ActionRequest request = pending->request;
    const QString label = makeVisible(request.path);
    auto diffWork = [current, content = request.content, label] {
        return unifiedDiff(current, content, label, label + QStringLiteral(" (new)"));
    };
    runThen(this, std::move(diffWork), [this, id, request, note](const Expected<QByteArray>& diff) {
        if (id != m_detailId)
            return;
        QString text = fileWriteHeader(request);
        if (!note.isEmpty())
            text += note + QLatin1Char('\n');
        text += QLatin1Char('\n');
        if (!diff)
            text += diff.error().message;
        else if (diff.value().isEmpty())
            text += tr("(the new content equals the current content)");
        else
            text += makeVisible(QString::fromUtf8(diff.value()));
        m_detail->setPlainText(withPreview(id, text));
    });
}

void ApprovalQueuePane::updateTimes()
{
    if (!m_queue)
        return;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_list->topLevelItem(i);
        if (const auto pending = m_queue->find(item->data(Who, kIdRole).toLongLong()))
            item->setText(TimeLeft, timeLeft(pending->deadline));
    }
}

void ApprovalQueuePane::fitColumns()
{
    // Who is as wide as its texts but at most 12 characters (the rest elided, whole in the tooltip).
    const int cap = fontMetrics().averageCharWidth() * 12;
    m_list->resizeColumnToContents(Who);
    if (m_list->columnWidth(Who) > cap)
        m_list->setColumnWidth(Who, cap);
    keepHeadersWhole(m_list, m_list->header());
}

void ApprovalQueuePane::updateButtons()
{
    const qint64 id = currentId();
    const auto pending = m_queue && id ? m_queue->find(id) : std::nullopt;
    // A connection is allowed or denied as it is: there is nothing to edit in it.
    const bool connection = pending && pending->request.kind == ActionKind::Network;
    m_approve->setEnabled(pending.has_value());
    m_deny->setEnabled(pending.has_value());
    m_edit->setEnabled(pending && !connection);
    const bool busy = m_previewing.count(id) > 0;
    m_preview->setVisible(m_previewRunner != nullptr);
    m_preview->setEnabled(canPreview(pending) && !busy);
    m_approvePreviewed->setVisible(m_previewRunner != nullptr);
    m_approvePreviewed->setEnabled(pending && m_previews.count(id) && !busy);
    m_allowAlways->setVisible(connection && m_ruleWriter);
    m_empty->setVisible(m_list->topLevelItemCount() == 0);
}

void ApprovalQueuePane::notify(const PendingApproval& pending)
{
    QWidget* top = window();
    if (top->isActiveWindow())
        return;
    QApplication::alert(top);
    if (!QSystemTrayIcon::isSystemTrayAvailable())
        return;
    if (!m_tray) {
        m_tray = new QSystemTrayIcon(top->windowIcon(), this);
        m_tray->setToolTip(tr("Sandbox Workbench: actions wait for approval"));
    }
    m_tray->show();
    m_tray->showMessage(tr("Approval needed"),
                        tr("%1 asks: %2 %3")
                            .arg(oneLineVisible(pending.request.actor.display()), actionKindName(pending.request.kind),
                                 oneLineVisible(subjectOf(pending.request), kSubjectChars)),
                        QSystemTrayIcon::Information, 10'000);
}

} // namespace sbw
