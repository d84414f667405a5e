#include "files/FileTreePane.h"

#include "base/Async.h"
#include "base/VisibleText.h"
#include "files/FilePreview.h"
#include "files/FileTreeModel.h"
#include "log/LoggedAction.h"

#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QDateTime>
#include <QVBoxLayout>

namespace sbw {
namespace {

/// A person's row for a file action: the guest path as its command, with the host file of an
/// upload or download ("/root/a.txt ← /home/me/a.txt", "/root/a.txt → /home/me/a.txt").
ActionStart fileAction(const QString& sandbox, ActionKind kind, const QByteArray& guestPath,
                       const QString& hostPath)
{
    ActionStart start;
    start.sandbox = sandbox;
    start.kind = kind;
    start.command = QString::fromUtf8(guestPath);
    if (kind == ActionKind::Upload)
        start.command += QStringLiteral(" ← ") + hostPath;
    else if (kind == ActionKind::Download)
        start.command += QStringLiteral(" → ") + hostPath;
    return start;
}

} // namespace

FileTreePane::FileTreePane(std::shared_ptr<SftpClient> sftp, const QByteArray& rootPath,
                           QWidget* parent)
    : QWidget(parent), m_sftp(std::move(sftp)), m_model(new FileTreeModel(m_sftp, rootPath, this)),
      m_view(new QTreeView(this)), m_refresh(new QPushButton(tr("Refresh"), this)),
      m_download(new QPushButton(tr("Download…"), this)),
      m_open(new QPushButton(tr("Open"), this)),
      m_upload(new QPushButton(tr("Upload…"), this)),
      m_delete(new QPushButton(tr("Delete…"), this)),
      m_closePreview(new QPushButton(tr("Close Preview"), this)),
      m_split(new QSplitter(Qt::Horizontal, this)), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this))
{
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true); // keeps a 10,000-row folder cheap to lay out
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(FileTreeModel::NameColumn, QHeaderView::Stretch);
    // Fixed widths: sizing to contents would measure every row of a 10,000-entry folder.
    const int margin = 3 * fontMetrics().horizontalAdvance(QLatin1Char('M'));
    m_view->header()->resizeSection(FileTreeModel::ModeColumn,
                                    fontMetrics().horizontalAdvance(QStringLiteral("drwxrwxrwx")) +
                                        margin);
    m_view->header()->resizeSection(
        FileTreeModel::ModifiedColumn,
        fontMetrics().horizontalAdvance(QStringLiteral("0000-00-00 00:00")) + margin);
    m_view->header()->resizeSection(
        FileTreeModel::SizeColumn, fontMetrics().horizontalAdvance(QStringLiteral("1023.99 KiB")) + margin);
    m_view->header()->resizeSection(
        FileTreeModel::OwnerColumn, fontMetrics().horizontalAdvance(QStringLiteral("nobody:nogroup")) + margin);
    m_view->setAcceptDrops(true);
    m_view->viewport()->setAcceptDrops(true);
    m_view->viewport()->installEventFilter(this);
    m_progress->setRange(0, 1000);
    m_progress->hide();
    m_status->setWordWrap(true);
    m_status->hide();

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_refresh);
    buttons->addWidget(m_open);
    buttons->addWidget(m_download);
    buttons->addWidget(m_upload);
    buttons->addWidget(m_delete);
    buttons->addWidget(m_progress, 1);
    buttons->addStretch();
    buttons->addWidget(m_closePreview);
    m_closePreview->hide();
    m_split->setChildrenCollapsible(false);
    m_split->addWidget(m_view);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_split, 1);
    layout->addWidget(m_status);

    connect(m_refresh, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        const QModelIndex folder =
            current.isValid() && current.data(FileTreeModel::EntryTypeRole).toInt() ==
                                     int(SftpEntry::Type::Directory)
                ? current.siblingAtColumn(0)
                : current.parent();
        m_model->refresh(folder);
    });
    connect(m_download, &QPushButton::clicked, this, [this] {
        const QString folder =
            QFileDialog::getExistingDirectory(this, tr("Download to"), QDir::homePath());
        if (!folder.isEmpty())
            downloadSelected(folder);
    });
    connect(m_upload, &QPushButton::clicked, this, [this] {
        const QStringList files =
            QFileDialog::getOpenFileNames(this, tr("Upload to the sandbox"), QDir::homePath());
        if (!files.isEmpty())
            uploadFiles(files, uploadFolder());
    });
    connect(m_delete, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (!current.isValid())
            return;
        const QString path = makeVisible(QString::fromUtf8(current.data(FileTreeModel::PathRole).toByteArray()));
        if (QMessageBox::question(this, tr("Delete"), tr("Delete %1 in the sandbox?").arg(path))
            == QMessageBox::Yes)
            deleteSelected();
    });
    connect(m_model, &FileTreeModel::loadFailed, this,
            [this](const QByteArray&, const QString& message) {
                m_status->setText(makeVisible(message));
                m_status->show();
            });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this] { setBusy(m_busy); });
    m_open->setToolTip(tr("Show the selected file: images as pictures, other files as text"));
    connect(m_open, &QPushButton::clicked, this, &FileTreePane::openSelected);
    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
        if (index.data(FileTreeModel::EntryTypeRole).toInt() == int(SftpEntry::Type::File))
            openSelected();
    });
    connect(this, &FileTreePane::transferFinished, this, &FileTreePane::showPreview);
    connect(m_closePreview, &QPushButton::clicked, this, &FileTreePane::closePreview);
    setBusy(false);
}

QByteArray FileTreePane::uploadFolder() const
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return m_model->rootPath();
    if (current.data(FileTreeModel::EntryTypeRole).toInt() == int(SftpEntry::Type::Directory))
        return current.data(FileTreeModel::PathRole).toByteArray();
    const QModelIndex parent = current.parent();
    return parent.isValid() ? parent.data(FileTreeModel::PathRole).toByteArray()
                            : m_model->rootPath();
}

FileTreePane::~FileTreePane()
{
    m_postBack->close();
}

void FileTreePane::downloadSelected(const QString& hostFolder)
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() || m_busy)
        return;
    const QByteArray guestPath = current.data(FileTreeModel::PathRole).toByteArray();
    const QString target =
        QDir(hostFolder).filePath(QFile::decodeName(guestPath.mid(guestPath.lastIndexOf('/') + 1)));
    startTransfer(tr("Downloading %1").arg(makeVisible(QString::fromUtf8(guestPath))),
                  [sftp = m_sftp, guestPath, target, log = m_log,
                   logged = loggedFile(ActionKind::Download, guestPath, target)](
                      const SftpClient::Progress& progress) {
                      LoggedAction action(log, logged);
                      auto done = sftp->download(guestPath, target, progress);
                      action.finish(LoggedAction::endOf(done));
                      return done;
                  },
                  {});
}

void FileTreePane::openSelected()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() || m_busy
        || current.data(FileTreeModel::EntryTypeRole).toInt() != int(SftpEntry::Type::File))
        return;
    const QByteArray guestPath = current.data(FileTreeModel::PathRole).toByteArray();
    const QString name = makeVisible(QString::fromUtf8(guestPath.mid(guestPath.lastIndexOf('/') + 1)));
    const qint64 size = current.data(FileTreeModel::SizeRole).toLongLong();
    if (size > kMaxPreviewBytes) {
        m_status->setText(tr("%1 has %2 bytes, more than a preview shows (%3); download it instead")
                              .arg(name).arg(size).arg(kMaxPreviewBytes));
        m_status->show();
        return;
    }
    if (!m_previewDir.isValid()) {
        m_status->setText(tr("Cannot preview: no temporary folder (%1)").arg(m_previewDir.errorString()));
        m_status->show();
        return;
    }
    const QString target = m_previewDir.filePath(QString::number(quintptr(this)) + QLatin1Char('-')
                                                 + QString::number(QDateTime::currentMSecsSinceEpoch()));
    m_pendingPreview = PendingPreview{target, name};
    startTransfer(tr("Opening %1").arg(name),
                  [sftp = m_sftp, guestPath, target](const SftpClient::Progress& progress) {
                      return sftp->download(guestPath, target, progress);
                  },
                  {});
}

void FileTreePane::showPreview(const Expected<void>& fetched)
{
    if (!m_pendingPreview)
        return;
    const PendingPreview pending = *std::exchange(m_pendingPreview, std::nullopt);
    QFile file(pending.hostPath);
    if (!fetched || !file.open(QIODevice::ReadOnly)) {
        if (fetched) {
            m_status->setText(tr("Cannot read the fetched copy: %1").arg(file.errorString()));
            m_status->show();
        }
        file.remove();
        return;
    }
    const QByteArray bytes = file.readAll();
    file.close();
    file.remove();
    const bool first = !m_preview;
    closePreview();
    m_preview = new FilePreview(pending.name, bytes, m_split);
    m_split->addWidget(m_preview);
    if (first) // the tree keeps the larger part
        m_split->setSizes({m_split->width() * 2 / 3, m_split->width() / 3});
    m_closePreview->show();
    Q_EMIT previewOpened(m_preview);
}

void FileTreePane::closePreview()
{
    if (m_preview) {
        m_preview->hide();
        m_preview->deleteLater();
        m_preview = nullptr;
    }
    m_closePreview->hide();
}

void FileTreePane::uploadFiles(const QStringList& hostFiles, const QByteArray& guestFolder)
{
    if (hostFiles.isEmpty() || m_busy)
        return;
    startTransfer(
        tr("Uploading %n file(s)", nullptr, int(hostFiles.size())),
        [sftp = m_sftp, hostFiles, guestFolder, log = m_log,
         sandbox = m_sandbox](const SftpClient::Progress& progress) -> Expected<void> {
            qint64 total = 0;
            for (const QString& file : hostFiles)
                total += QFileInfo(file).size();
            qint64 before = 0;
            for (const QString& file : hostFiles) {
                const QByteArray target = guestFolder + (guestFolder.endsWith('/') ? "" : "/") +
                                          QFile::encodeName(QFileInfo(file).fileName());
                LoggedAction action(log, fileAction(sandbox, ActionKind::Upload, target, file));
                auto sent = sftp->upload(
                    file, target, [&](qint64 done, qint64) { progress(before + done, total); });
                action.finish(LoggedAction::endOf(sent));
                if (!sent)
                    return sent;
                before += QFileInfo(file).size();
            }
            return {};
        },
        guestFolder);
}

void FileTreePane::setCommandLog(std::shared_ptr<CommandLog> log, const QString& sandbox)
{
    m_log = std::move(log);
    m_sandbox = sandbox;
}

ActionStart FileTreePane::loggedFile(ActionKind kind, const QByteArray& guestPath,
                                     const QString& hostPath) const
{
    return fileAction(m_sandbox, kind, guestPath, hostPath);
}

void FileTreePane::deleteSelected()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() || m_busy)
        return;
    const QByteArray guestPath = current.data(FileTreeModel::PathRole).toByteArray();
    const QByteArray folder = guestPath.left(std::max<qsizetype>(guestPath.lastIndexOf('/'), 1));
    startTransfer(tr("Deleting %1").arg(makeVisible(QString::fromUtf8(guestPath))),
                  [sftp = m_sftp, guestPath, log = m_log,
                   logged = loggedFile(ActionKind::FileDelete, guestPath, {})](
                      const SftpClient::Progress&) {
                      LoggedAction action(log, logged);
                      auto removed = sftp->remove(guestPath);
                      action.finish(LoggedAction::endOf(removed));
                      return removed;
                  },
                  folder);
}

void FileTreePane::startTransfer(const QString& label,
                                 std::function<Expected<void>(const SftpClient::Progress&)> work,
                                 const QByteArray& refreshFolder)
{
    setBusy(true);
    m_status->hide();
    m_progress->setValue(0);
    m_progress->setFormat(label + QStringLiteral(" — %p%"));
    m_progress->show();
    auto transfer = [postBack = m_postBack, work = std::move(work)] {
        int shown = -1;
        const auto progress = [&](qint64 done, qint64 total) {
            const int permille = total > 0 ? int(done * 1000 / total) : 1000;
            if (permille == shown)
                return;
            shown = permille;
            postBack->post([permille](FileTreePane* pane) { pane->m_progress->setValue(permille); });
        };
        return work(progress);
    };
    runThen(this, std::move(transfer), [this, refreshFolder](const Expected<void>& result) {
        setBusy(false);
        m_progress->hide();
        if (!result) {
            m_status->setText(makeVisible(result.error().message));
            m_status->show();
        }
        if (!refreshFolder.isEmpty()) {
            const QModelIndex folder = m_model->indexForPath(refreshFolder);
            if (folder.isValid() || refreshFolder == m_model->rootPath())
                m_model->refresh(folder);
        }
        Q_EMIT transferFinished(result);
    });
}

void FileTreePane::fitNameColumn()
{
    // The name takes the room the other columns leave, but never less than a readable width:
    // below that (a narrow pane, a preview beside the tree) the tree scrolls sideways.
    QHeaderView* header = m_view->header();
    int others = 0;
    for (int column = FileTreeModel::SizeColumn; column < FileTreeModel::ColumnCount; ++column)
        others += header->sectionSize(column);
    const int minimum = 18 * fontMetrics().horizontalAdvance(QLatin1Char('M'));
    if (m_view->viewport()->width() - others >= minimum) {
        header->setSectionResizeMode(FileTreeModel::NameColumn, QHeaderView::Stretch);
    } else {
        header->setSectionResizeMode(FileTreeModel::NameColumn, QHeaderView::Interactive);
        header->resizeSection(FileTreeModel::NameColumn, minimum);
    }
}

void FileTreePane::setBusy(bool busy)
{
    m_busy = busy;
    m_download->setEnabled(!busy && m_view->currentIndex().isValid());
    m_open->setEnabled(!busy && m_view->currentIndex().data(FileTreeModel::EntryTypeRole).toInt()
                                    == int(SftpEntry::Type::File));
    m_upload->setEnabled(!busy);
    m_delete->setEnabled(!busy && m_view->currentIndex().isValid());
}

bool FileTreePane::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_view->viewport())
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::Resize:
        fitNameColumn();
        return false;
    case QEvent::DragEnter:
    case QEvent::DragMove: {
        auto* drag = static_cast<QDropEvent*>(event);
        if (!drag->mimeData()->hasUrls() || m_busy)
            return false;
        drag->acceptProposedAction();
        return true;
    }
    case QEvent::Drop: {
        auto* drop = static_cast<QDropEvent*>(event);
        QStringList files;
        for (const QUrl& url : drop->mimeData()->urls()) {
            if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
                files.append(url.toLocalFile());
        }
        const QModelIndex target = m_view->indexAt(drop->position().toPoint());
        QByteArray folder = m_model->rootPath();
        if (target.isValid()) {
            const bool isFolder = target.data(FileTreeModel::EntryTypeRole).toInt() ==
                                  int(SftpEntry::Type::Directory);
            const QModelIndex folderIndex = isFolder ? target : target.parent();
            if (folderIndex.isValid())
                folder = folderIndex.data(FileTreeModel::PathRole).toByteArray();
        }
        drop->acceptProposedAction();
        uploadFiles(files, folder);
        return true;
    }
    default:
        return false;
    }
}

} // namespace sbw
