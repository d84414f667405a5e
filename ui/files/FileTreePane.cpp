#include "files/FileTreePane.h"

#include "base/Async.h"
#include "base/VisibleText.h"
#include "files/FileEntryText.h"
#include "files/FilePreview.h"
#include "files/FileTreeModel.h"
#include "log/LoggedAction.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

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
    start.command = fileNameText(guestPath);
    if (kind == ActionKind::Upload)
        start.command += QStringLiteral(" ← ") + hostPath;
    else if (kind == ActionKind::Download)
        start.command += QStringLiteral(" → ") + hostPath;
    return start;
}

/// One selected item of a download and its host path.
struct DownloadItem
{
    QByteArray guestPath;
    QString hostPath;
};

/// "1 file", "3 files"
QString fileCount(qsizetype files)
{
    return files == 1 ? FileTreePane::tr("1 file") : FileTreePane::tr("%1 files").arg(files);
}

/// "1 entry", "3 entries"
QString entryCount(qsizetype entries)
{
    return entries == 1 ? FileTreePane::tr("1 entry") : FileTreePane::tr("%1 entries").arg(entries);
}

/// "3 files, 1.2 KiB"
QString filesAndBytes(int files, qint64 bytes)
{
    return fileCount(files) + QStringLiteral(", ") + QLocale().formattedDataSize(bytes);
}

/// "/tmp/x/link (a symbolic link (links are not followed))" for each entry left out (without
/// the reason when `reasons` is false); at most `max` of them, then "and N more".
QString skippedList(const QList<SftpSkipped>& skipped, qsizetype max, bool reasons = true)
{
    QStringList lines;
    for (qsizetype i = 0; i < skipped.size() && i < max; ++i)
        lines.append(reasons
                         ? QStringLiteral("%1 (%2)").arg(fileNameText(skipped[i].guestPath),
                                                         makeVisible(skippedReasonText(skipped[i])))
                         : fileNameText(skipped[i].guestPath));
    if (skipped.size() > max)
        lines.append(FileTreePane::tr("and %n more", nullptr, int(skipped.size() - max)));
    return lines.join(QStringLiteral("; "));
}

/// Downloads `items` into `hostFolder` one after the other, each a row of `log`. The note of
/// what was copied, or an error: the first that failed, or what was left out.
Expected<QString> downloadItems(SftpClient& sftp, const QList<DownloadItem>& items,
                                const QString& hostFolder, SftpClient::HostFiles existing,
                                const SftpClient::Progress& progress,
                                const std::shared_ptr<CommandLog>& log, const QString& sandbox)
{
    const auto byPath = [](const SftpSkipped& a, const SftpSkipped& b) {
        return a.guestPath < b.guestPath;
    };
    SftpDownload all;
    QList<SftpSkipped> kept; // in path order: items in order, each one's entries sorted
    QList<SftpSkipped> leftOut;
    const qint64 steps = 1000 * items.size();
    for (qsizetype i = 0; i < items.size(); ++i) {
        const DownloadItem& item = items[i];
        LoggedAction action(
            log, fileAction(sandbox, ActionKind::Download, item.guestPath, item.hostPath));
        auto done = sftp.download(
            item.guestPath, item.hostPath,
            [&](qint64 bytes, qint64 total) {
                progress(1000 * i + (total > 0 ? bytes * 1000 / total : 1000), steps);
            },
            -1, existing);
        if (!done) {
            action.finish(LoggedAction::endOf(Expected<void>(done.error())));
            if (i == 0)
                return done.error();
            return makeError(FileTreePane::tr("%1 (after %2 of %3 items were downloaded to %4)")
                                 .arg(done.error().message)
                                 .arg(i)
                                 .arg(items.size())
                                 .arg(hostFolder));
        }
        all.files += done->files;
        all.bytes += done->bytes;
        ActionEnd end;
        QList<SftpSkipped> missing;
        std::sort(done->skipped.begin(), done->skipped.end(), byPath);
        for (const SftpSkipped& skipped : done->skipped) {
            (skipped.reason == SftpSkipped::Reason::ExistsOnHost ? kept : missing).append(skipped);
            action.output(OutputStream::Stdout, (skippedList({skipped}, 1) + u'\n').toUtf8());
        }
        if (!missing.isEmpty()) {
            end.outcome = Outcome::Failed;
            end.error = FileTreePane::tr("left out %1").arg(entryCount(missing.size()));
        }
        action.finish(end);
        leftOut += missing;
    }
    if (all.files == 0 && leftOut.isEmpty() && !kept.isEmpty())
        return FileTreePane::tr("Nothing downloaded: the host's own copy was kept of %1")
            .arg(skippedList(kept, 5, false));
    QString note =
        items.size() == 1
            ? FileTreePane::tr("Downloaded %1 to %2 (%3)")
                  .arg(fileNameText(items.first().guestPath), items.first().hostPath,
                       filesAndBytes(all.files, all.bytes))
            : FileTreePane::tr("Downloaded %n items to %1 (%2)", nullptr, int(items.size()))
                  .arg(hostFolder, filesAndBytes(all.files, all.bytes));
    if (!kept.isEmpty())
        note += FileTreePane::tr("; the host's own copy was kept of %1")
                    .arg(skippedList(kept, 5, false));
    if (leftOut.isEmpty())
        return note;
    return makeError(FileTreePane::tr("%1, but left out %2: %3")
                         .arg(note, entryCount(leftOut.size()), skippedList(leftOut, 5)));
}

} // namespace

FileTreePane::FileTreePane(std::shared_ptr<SftpClient> sftp, const QByteArray& rootPath,
                           QWidget* parent)
    : QWidget(parent), m_sftp(std::move(sftp)), m_model(new FileTreeModel(m_sftp, rootPath, this)),
      m_view(new QTreeView(this)), m_refresh(new QPushButton(tr("Refresh"), this)),
      m_download(new QPushButton(tr("Download…"), this)), m_open(new QPushButton(tr("Open"), this)),
      m_upload(new QPushButton(tr("Upload…"), this)),
      m_delete(new QPushButton(tr("Delete…"), this)),
      m_closePreview(new QPushButton(tr("Close Preview"), this)),
      m_split(new QSplitter(Qt::Horizontal, this)), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this))
{
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true); // keeps a 10,000-row folder cheap to lay out
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
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
    m_view->header()->resizeSection(FileTreeModel::SizeColumn,
                                    fontMetrics().horizontalAdvance(QStringLiteral("1023.99 KiB")) +
                                        margin);
    m_view->header()->resizeSection(
        FileTreeModel::OwnerColumn,
        fontMetrics().horizontalAdvance(QStringLiteral("nobody:nogroup")) + margin);
    m_view->setAcceptDrops(true);
    m_view->viewport()->setAcceptDrops(true);
    m_view->viewport()->installEventFilter(this);
    m_progress->setRange(0, 1000);
    m_progress->hide();
    m_status->setObjectName(QStringLiteral("fileTreeStatus"));
    m_status->setTextFormat(Qt::PlainText);
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

    m_refresh->setToolTip(tr("List every folder shown again"));
    connect(m_refresh, &QPushButton::clicked, this, [this] { m_model->refresh(); });
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
        const QList<QByteArray> paths = selectedPaths();
        if (paths.isEmpty())
            return;
        QStringList shown;
        for (const QByteArray& path : paths)
            shown.append(fileNameText(path));
        const QString question =
            paths.size() == 1
                ? tr("Delete %1 in the sandbox?").arg(shown.first())
                : tr("Delete these %n items in the sandbox?\n%1", nullptr, int(paths.size()))
                      .arg(shown.join(u'\n'));
        // Plain text: a guest's name such as "<b>x</b>" is not markup.
        QMessageBox box(QMessageBox::Question, tr("Delete"), question,
                        QMessageBox::Yes | QMessageBox::No, this);
        box.setTextFormat(Qt::PlainText);
        if (box.exec() == QMessageBox::Yes)
            deleteSelected();
    });
    connect(m_model, &FileTreeModel::loadFailed, this,
            [this](const QByteArray&, const QString& message) {
                showStatus(makeVisible(message), true);
            });
    connect(m_model, &FileTreeModel::folderLoaded, this, [this](const QByteArray& path) {
        if (const QString note = pathLimitNote(path); !note.isEmpty())
            showStatus(makeVisible(note), true);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { setBusy(m_busy); });
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

QList<QByteArray> FileTreePane::selectedPaths() const
{
    QModelIndexList rows = m_view->selectionModel()->selectedRows(FileTreeModel::NameColumn);
    std::sort(rows.begin(), rows.end(), [this](const QModelIndex& a, const QModelIndex& b) {
        return m_view->visualRect(a).top() < m_view->visualRect(b).top();
    });
    QSet<QByteArray> selected;
    for (const QModelIndex& row : rows)
        selected.insert(row.data(FileTreeModel::PathRole).toByteArray());
    QList<QByteArray> paths;
    for (const QModelIndex& row : rows) {
        bool inSelectedFolder = false;
        for (QModelIndex up = row.parent(); up.isValid() && !inSelectedFolder; up = up.parent())
            inSelectedFolder = selected.contains(up.data(FileTreeModel::PathRole).toByteArray());
        if (!inSelectedFolder)
            paths.append(row.data(FileTreeModel::PathRole).toByteArray());
    }
    return paths;
}

QString FileTreePane::statusText() const
{
    return m_status->isVisibleTo(this) ? m_status->text() : QString();
}

void FileTreePane::showStatus(const QString& text, bool problem)
{
    // A problem in the error red of the Material palette, readable on light and dark windows.
    m_status->setStyleSheet(problem ? QStringLiteral("color: #d93025;") : QString());
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

void FileTreePane::downloadSelected(const QString& hostFolder)
{
    const QList<QByteArray> paths = selectedPaths();
    if (paths.isEmpty() || m_busy)
        return;
    QStringList there;
    for (const QByteArray& path : paths) {
        const QFileInfo host(
            QDir(hostFolder).filePath(visibleName(path.mid(path.lastIndexOf('/') + 1))));
        if (host.exists() || host.isSymLink())
            there.append(host.fileName());
    }
    if (there.isEmpty()) {
        startDownload(paths, hostFolder, SftpClient::HostFiles::Replace);
        return;
    }
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Download"),
        (there.size() == 1 ? tr("%1 already has %2. Replace it with the sandbox's copy?")
                           : tr("%1 already has %2. Replace them with the sandbox's copies?"))
            .arg(hostFolder, there.join(QStringLiteral(", "))),
        QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("replaceQuestion"));
    box->setTextFormat(Qt::PlainText);
    box->button(QMessageBox::Yes)->setText(tr("Replace"));
    box->button(QMessageBox::No)->setText(tr("Keep the Host's"));
    box->setInformativeText(tr("Replace overwrites the host's files with the sandbox's. "
                               "Keep the Host's copies only what the host does not have yet: "
                               "folders are merged, and the host's files stay as they are."));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, paths, hostFolder](int answer) {
        if (answer == QMessageBox::Yes)
            startDownload(paths, hostFolder, SftpClient::HostFiles::Replace);
        else if (answer == QMessageBox::No)
            startDownload(paths, hostFolder, SftpClient::HostFiles::Keep);
        else
            showStatus(tr("Download cancelled: nothing was copied"));
    });
    box->open();
}

void FileTreePane::startDownload(const QList<QByteArray>& guestPaths, const QString& hostFolder,
                                 SftpClient::HostFiles existing)
{
    if (m_busy)
        return;
    QList<DownloadItem> items;
    for (const QByteArray& path : guestPaths)
        items.append(
            {path, QDir(hostFolder).filePath(visibleName(path.mid(path.lastIndexOf('/') + 1)))});
    const QString label = items.size() == 1
                              ? tr("Downloading %1").arg(fileNameText(items.first().guestPath))
                              : tr("Downloading %n items", nullptr, int(items.size()));
    startTransfer(label,
                  [sftp = m_sftp, items, hostFolder, existing, log = m_log,
                   sandbox = m_sandbox](const SftpClient::Progress& progress) {
                      return downloadItems(*sftp, items, hostFolder, existing, progress, log,
                                           sandbox);
                  },
                  {});
}

void FileTreePane::openSelected()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() || m_busy ||
        current.data(FileTreeModel::EntryTypeRole).toInt() != int(SftpEntry::Type::File))
        return;
    const QByteArray guestPath = current.data(FileTreeModel::PathRole).toByteArray();
    const QString name = fileNameText(guestPath.mid(guestPath.lastIndexOf('/') + 1));
    const qint64 size = current.data(FileTreeModel::SizeRole).toLongLong();
    if (size > kMaxPreviewBytes) {
        showStatus(tr("%1 has %2 bytes, more than a preview shows (%3); download it instead")
                       .arg(name)
                       .arg(size)
                       .arg(kMaxPreviewBytes));
        return;
    }
    if (!m_previewDir.isValid()) {
        showStatus(tr("Cannot preview: no temporary folder (%1)").arg(m_previewDir.errorString()),
                   true);
        return;
    }
    const QString target =
        m_previewDir.filePath(QString::number(quintptr(this)) + QLatin1Char('-') +
                              QString::number(QDateTime::currentMSecsSinceEpoch()));
    m_pendingPreview = PendingPreview{target, name};
    startTransfer(tr("Opening %1").arg(name),
                  [sftp = m_sftp, guestPath,
                   target](const SftpClient::Progress& progress) -> Expected<QString> {
                      if (auto fetched = sftp->download(guestPath, target, progress); !fetched)
                          return fetched.error();
                      return QString();
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
        if (fetched)
            showStatus(tr("Cannot read the fetched copy: %1").arg(file.errorString()), true);
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
        tr("Uploading %1").arg(fileCount(hostFiles.size())),
        [sftp = m_sftp, hostFiles, guestFolder, log = m_log,
         sandbox = m_sandbox](const SftpClient::Progress& progress) -> Expected<QString> {
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
                    return sent.error();
                before += QFileInfo(file).size();
            }
            return tr("Uploaded %1 to %2")
                .arg(fileCount(hostFiles.size()), fileNameText(guestFolder));
        },
        guestFolder);
}

void FileTreePane::setCommandLog(std::shared_ptr<CommandLog> log, const QString& sandbox)
{
    m_log = std::move(log);
    m_sandbox = sandbox;
}

void FileTreePane::deleteSelected()
{
    const QList<QByteArray> paths = selectedPaths();
    if (paths.isEmpty() || m_busy)
        return;
    const QString label = paths.size() == 1 ? tr("Deleting %1").arg(fileNameText(paths.first()))
                                            : tr("Deleting %n items", nullptr, int(paths.size()));
    startTransfer(
        label,
        [sftp = m_sftp, paths, log = m_log,
         sandbox = m_sandbox](const SftpClient::Progress& progress) -> Expected<QString> {
            for (qsizetype i = 0; i < paths.size(); ++i) {
                LoggedAction action(log, fileAction(sandbox, ActionKind::FileDelete, paths[i], {}));
                auto removed = sftp->remove(paths[i]);
                action.finish(LoggedAction::endOf(removed));
                if (!removed && i == 0)
                    return removed.error();
                if (!removed)
                    return makeError(tr("%1 (after %2 of %3 items were deleted)")
                                         .arg(removed.error().message)
                                         .arg(i)
                                         .arg(paths.size()));
                progress(i + 1, paths.size());
            }
            return paths.size() == 1 ? tr("Deleted %1").arg(fileNameText(paths.first()))
                                     : tr("Deleted %n items", nullptr, int(paths.size()));
        },
        m_model->rootPath());
}

void FileTreePane::startTransfer(const QString& label,
                                 std::function<Expected<QString>(const SftpClient::Progress&)> work,
                                 const QByteArray& refreshFolder)
{
    setBusy(true);
    showStatus({});
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
            postBack->post(
                [permille](FileTreePane* pane) { pane->m_progress->setValue(permille); });
        };
        return work(progress);
    };
    runThen(this, std::move(transfer), [this, refreshFolder](const Expected<QString>& result) {
        setBusy(false);
        m_progress->hide();
        showStatus(makeVisible(result ? result.value() : result.error().message), !result);
        if (!refreshFolder.isEmpty()) {
            const QModelIndex folder = m_model->indexForPath(refreshFolder);
            if (folder.isValid() || refreshFolder == m_model->rootPath())
                m_model->refresh(folder);
        }
        Q_EMIT transferFinished(result ? Expected<void>() : Expected<void>(result.error()));
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
    const bool selected = m_view->selectionModel()->hasSelection();
    m_download->setEnabled(!busy && selected);
    m_open->setEnabled(!busy && m_view->currentIndex().data(FileTreeModel::EntryTypeRole).toInt() ==
                                    int(SftpEntry::Type::File));
    m_upload->setEnabled(!busy);
    m_delete->setEnabled(!busy && selected);
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
