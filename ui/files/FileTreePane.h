#pragma once

#include "base/Async.h"
#include "guest/SftpClient.h"
#include "log/CommandLog.h"

#include <QPointer>
#include <QTemporaryDir>
#include <QWidget>
#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTreeView;

namespace sbw {

class FilePreview;
class FileTreeModel;

/// The file tree of a running sandbox: a lazy tree (FileTreeModel) of the guest folder
/// `rootPath` with Refresh (lists every loaded folder again), Open, Download… and Upload…
/// buttons, uploads by dropping host files on a folder (or on the empty area: the root), a
/// progress bar for the running transfer and a preview of the opened file beside the tree, and
/// Delete… for the selected files and empty folders. Several rows can be selected for Download…
/// and Delete…. One transfer runs at a time, on a worker thread; when it ends a line under the
/// tree says what it did or why it failed. A download names host files as the tree shows the
/// guest's names (visibleName()), never replaces a host file without asking, and says what it
/// left out of a folder and why. With a command log (setCommandLog()), every upload (one row per
/// file), download (one row per selected item) and delete is a person's row there (ActionKind
/// Upload, Download, FileDelete); a download that left entries out is Failed, with them listed
/// in its output. A folder so deep that the guest's SFTP server leaves out its longer names
/// (pathLimitNote()) is shown with a line that says so.
class FileTreePane : public QWidget
{
    Q_OBJECT

public:
    FileTreePane(std::shared_ptr<SftpClient> sftp, const QByteArray& rootPath,
                 QWidget* parent = nullptr);
    ~FileTreePane() override;

    FileTreeModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }

    /// Copies the selected files and folders into the host folder `hostFolder`. When some are
    /// there already it first asks (a QMessageBox, object name "replaceQuestion") whether to
    /// replace them (Yes), keep them and copy the rest (No) or cancel. Returns at once;
    /// transferFinished() follows unless cancelled.
    void downloadSelected(const QString& hostFolder);

    /// The guest paths of the selected rows, in view order, without those inside a selected
    /// folder.
    QList<QByteArray> selectedPaths() const;

    /// The line under the tree: what the last transfer did, or why something failed.
    QString statusText() const;

    /// Copies the host files `hostFiles` into the guest folder `guestFolder` and refreshes it.
    /// Returns at once; transferFinished() follows.
    void uploadFiles(const QStringList& hostFiles, const QByteArray& guestFolder);

    /// Logs transfers and deletes from now on as a person's rows for sandbox `sandbox` in `log`
    /// (null: no logging). Previews are not logged: nothing leaves the workbench.
    void setCommandLog(std::shared_ptr<CommandLog> log, const QString& sandbox);

    /// Removes the selected files, symlinks and empty folders in the guest (Delete… asks
    /// first), then refreshes the tree. Returns at once; transferFinished() follows.
    void deleteSelected();

    /// The guest folder an upload goes to: the selected folder, the folder of the selected
    /// file, or the root.
    QByteArray uploadFolder() const;

    /// Opens the selected file (at most kMaxPreviewBytes) in a read-only preview beside the
    /// tree, in place of the previous one: images as pictures, anything else as escaped text.
    /// Also on double-click. Returns at once; previewOpened() or a status line follows.
    /// Close Preview gives the room back to the tree.
    void openSelected();
    static constexpr qint64 kMaxPreviewBytes = 16 * 1024 * 1024;

Q_SIGNALS:
    /// A preview opened beside the tree (it is deleted when replaced or closed).
    void previewOpened(sbw::FilePreview* preview);
    /// A download, upload or delete ended, with its error if it failed or (a download) left
    /// something out.
    void transferFinished(const sbw::Expected<void>& result);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Runs `work` on a worker thread behind the progress bar; its result is the note shown
    /// when it ends (empty: none) or its error. Then refreshes `refreshFolder` (none: empty).
    void startTransfer(const QString& label,
                       std::function<Expected<QString>(const SftpClient::Progress&)> work,
                       const QByteArray& refreshFolder);
    void startDownload(const QList<QByteArray>& guestPaths, const QString& hostFolder,
                       SftpClient::HostFiles existing);
    /// The line under the tree (hidden when `text` is empty); a `problem` shows in red.
    void showStatus(const QString& text, bool problem = false);
    void setBusy(bool busy);
    void fitNameColumn();

    std::shared_ptr<SftpClient> m_sftp;
    std::shared_ptr<CommandLog> m_log;
    QString m_sandbox; ///< for the log
    FileTreeModel* m_model;
    QTreeView* m_view;
    QPushButton* m_refresh;
    QPushButton* m_download;
    QPushButton* m_open;
    QPushButton* m_upload;
    QPushButton* m_delete;
    QPushButton* m_closePreview;
    QSplitter* m_split;
    QPointer<FilePreview> m_preview;
    QProgressBar* m_progress;
    QLabel* m_status;
    bool m_busy = false;
    /// Transfers report their progress through it.
    std::shared_ptr<PostBack<FileTreePane>> m_postBack =
        std::make_shared<PostBack<FileTreePane>>(this);
    QTemporaryDir m_previewDir; ///< files fetched for previews, removed once shown
    struct PendingPreview
    {
        QString hostPath;
        QString name;
    };
    std::optional<PendingPreview> m_pendingPreview;
    void showPreview(const Expected<void>& fetched);
    void closePreview();
};

} // namespace sbw
