#pragma once

#include "approval/ApprovalQueue.h"
#include "base/Expected.h"

#include <QFuture>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSystemTrayIcon;
class QTimer;
class QTreeWidget;

namespace sbw {

class ActionPreview;

/// The approval queue pane: the actions agents asked for that wait for a person, with who asked,
/// the workspace, the action, its command or path (in one line: oneLineVisible()) and the time
/// left before it is denied. The detail below shows the selected request whole: the full
/// command (or script) and the commands the policy found in it, each with the rule that decided
/// it or why it is asked (PendingApproval::commands, CommandVerdict::explanation()), or for a file
/// write the path and a unified diff of the new content against the file's current content
/// (a current file above kDiffCapBytes is not read: the detail says "file too large to diff
/// (N bytes)" above the new content). Text from agents and guests is shown literally
/// (makeVisible).
///
/// Keys (while the pane has the focus): Ctrl+Return approves the selected request; Ctrl+Backspace
/// (or Delete in the list) denies it with the reason typed in the reason field; Edit… changes
/// the command or content and approves the edited request. Preview (an exec or file write in a
/// workspace) runs the request in a throwaway fork of its workspace (ActionPreview) and adds to
/// the detail what it did there: status, output, changed files with diffs, new processes;
/// Approve as Previewed then makes the workspace the fork's result instead of running it again.
/// A preview's fork is deleted once the request is decided. A request that arrives while the
/// window is not active raises a desktop notification (the system tray's message when there is
/// a tray) and QApplication::alert().
class ApprovalQueuePane : public QWidget
{
    Q_OBJECT

public:
    /// The largest current file that is read for a diff, bytes.
    static constexpr qint64 kDiffCapBytes = 1024 * 1024;

    /// A guest file's current content as a ContentReader gives it.
    struct CurrentContent
    {
        qint64 size = 0;                 ///< bytes
        std::optional<QByteArray> bytes; ///< the content; empty when `size` passed the cap (not read)
    };
    /// Starts reading guest file `path` of workspace `sandbox` (its current content, for the
    /// diff), reading nothing when it holds more than `maxBytes`; called on the GUI thread,
    /// the future may finish on any thread.
    using ContentReader = std::function<QFuture<Expected<CurrentContent>>(const QString& sandbox, const QString& path,
                                                                         qint64 maxBytes)>;

    /// Starts a preview of `request` in a fork of its workspace; called on the GUI thread, the
    /// future may finish on any thread.
    using PreviewRunner = std::function<QFuture<Expected<std::shared_ptr<ActionPreview>>>(const ActionRequest& request)>;

    /// Sets an "always" rule for a connection of sandbox `sandbox` to `destination`
    /// (PolicyGate::setDestinationRule(): the waiting requests it decides leave the queue).
    using DestinationRuleWriter = std::function<Expected<void>(const QString& sandbox, const NetworkDestination& destination,
                                                               PolicyDecision decision)>;

    explicit ApprovalQueuePane(ApprovalQueue* queue, QWidget* parent = nullptr);
    ~ApprovalQueuePane() override;

    /// Without a reader, a file write is diffed against an empty file.
    void setContentReader(ContentReader reader) { m_reader = std::move(reader); }
    /// Without a runner there is no Preview.
    void setPreviewRunner(PreviewRunner runner);
    /// Without a writer, a connection is allowed once or denied, never "always".
    void setDestinationRuleWriter(DestinationRuleWriter writer);
    /// The name decisions carry (GateDecision::approver); the local user name by default.
    void setApproverName(const QString& name) { m_approver = name; }
    QString approverName() const { return m_approver; }

    /// About 56 characters wide: a dock beside the panes that still fits a 1280-pixel screen.
    QSize sizeHint() const override;

    QTreeWidget* list() const { return m_list; }
    QPlainTextEdit* detail() const { return m_detail; }
    QLineEdit* reasonField() const { return m_reason; }
    /// Id of the selected request; 0 when none.
    qint64 currentId() const;

public Q_SLOTS:
    void approveCurrent();
    /// For a connection: allows its host and port from now on (a rule in its workspace's policy).
    void allowCurrentAlways();
    /// Denies the selected request with the reason field's text (then clears it).
    void denyCurrent();
    /// Opens an editor on the selected request's command (file write: its new content); OK
    /// approves the edited request.
    void editCurrent();
    /// Runs the selected exec or file write in a fork of its workspace (setPreviewRunner()).
    void previewCurrent();
    /// Makes the selected request's workspace the result of its preview and approves it as done.
    void approveCurrentAsPreviewed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    enum Column { Who, Workspace, Action, Subject, TimeLeft };

    void onAdded(qint64 id);
    void onDecided(qint64 id);
    void showDetail();
    void updateTimes();
    void updateButtons();
    void fitColumns();
    void showDiff(qint64 id, const QByteArray& current, const QString& note);
    /// For a current file that is not diffed: `note`, then the new content.
    void showNewContent(qint64 id, const QString& note);
    QString fileWriteHeader(const ActionRequest& request) const;
    void notify(const PendingApproval& pending);
    /// `text` with the preview of request `id` after it, when there is one.
    QString withPreview(qint64 id, const QString& text) const;
    bool canPreview(const std::optional<PendingApproval>& pending) const;
    /// Deletes the fork of request `id`'s preview, if any, on a worker thread.
    void dropPreview(qint64 id);

    QPointer<ApprovalQueue> m_queue;
    ContentReader m_reader;
    DestinationRuleWriter m_ruleWriter;
    QString m_approver;
    QTreeWidget* m_list;
    QPlainTextEdit* m_detail;
    QLineEdit* m_reason;
    QPushButton* m_approve;
    QPushButton* m_allowAlways;
    QPushButton* m_deny;
    QPushButton* m_edit;
    QPushButton* m_preview;
    QPushButton* m_approvePreviewed;
    PreviewRunner m_previewRunner;
    std::map<qint64, std::shared_ptr<ActionPreview>> m_previews; ///< by request id
    std::set<qint64> m_previewing;                              ///< previews under way
    QLabel* m_empty;
    QTimer* m_clock;
    QSystemTrayIcon* m_tray = nullptr;
    qint64 m_detailId = 0; ///< request the detail shows (a diff arriving later must match it)
};

} // namespace sbw
