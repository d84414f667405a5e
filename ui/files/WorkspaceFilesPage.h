#pragma once

#include "base/Expected.h"

#include <QWidget>
#include <functional>
#include <memory>

class QLabel;
class QPushButton;

namespace sbw {

class CommandLog;
class FileTreePane;
class SftpClient;

/// The Files tab of one sandbox: opens an SFTP channel on the sandbox's SSH session (off the
/// GUI thread; the guest may still be booting) and then shows a FileTreePane rooted at
/// `rootPath`, the folder the sandbox's commands run in (/root for a workspace, /root/run for
/// an ephemeral run). Until then, or when the guest is not running, it says why and offers
/// Connect. When the sandbox stops (showGuestDown()) the tree goes, so no stale entries stay.
class WorkspaceFilesPage : public QWidget
{
    Q_OBJECT

public:
    using SftpProvider = std::function<Expected<std::shared_ptr<SftpClient>>()>;

    explicit WorkspaceFilesPage(SftpProvider provider,
                                const QByteArray& rootPath = QByteArrayLiteral("/root"),
                                QWidget* parent = nullptr);

    /// Logs the tree's transfers and deletes as a person's rows for `sandbox` in `log`
    /// (FileTreePane::setCommandLog), also for a tree made later.
    void setCommandLog(std::shared_ptr<CommandLog> log, const QString& sandbox);

    /// The file tree once connected, else nullptr.
    FileTreePane* tree() const { return m_tree; }

    /// The sentence shown in place of the tree; empty while the tree shows.
    QString statusText() const;

    /// Closes the tree (and its SFTP channel) and shows `why` in its place, e.g. "The
    /// workspace is stopped …", without Connect; a connection under way is forgotten.
    /// connectToGuest() brings the tree back (the window calls it when the workspace runs).
    void showGuestDown(const QString& why);

public Q_SLOTS:
    void connectToGuest();

Q_SIGNALS:
    void treeReady(sbw::FileTreePane* tree);

private:
    SftpProvider m_provider;
    QByteArray m_rootPath;
    QLabel* m_status;
    QPushButton* m_connect;
    FileTreePane* m_tree = nullptr;
    quint64 m_attempt = 0; ///< connections whose number is not the latest are dropped
    bool m_connecting = false;
    std::shared_ptr<CommandLog> m_log;
    QString m_sandbox;
};

} // namespace sbw
