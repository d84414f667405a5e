#pragma once

#include "base/Async.h"
#include "guest/SftpClient.h"

#include <QAbstractItemModel>
#include <functional>
#include <memory>
#include <vector>

namespace sbw {

/// A lazy tree of a guest's files over SFTP, for QTreeView. A folder's entries are listed when
/// the view asks (canFetchMore/fetchMore, i.e. on expand), on a worker thread, and inserted in
/// batches of at most 512 rows as they arrive, so a 10,000-entry folder never blocks the GUI.
///
/// Columns: name, size (files, in bytes as a short human figure), mode ("drwxr-xr-x"), owner
/// ("user:group", numeric when the server gave no names), modification time (local). Names and
/// paths are raw guest bytes, kept as such; they are shown as fileNameText() writes them (bytes
/// that are not UTF-8, control and hidden characters escaped, no two names alike).
/// A folder's entries are listed in the order they arrive; once the folder is loaded they are
/// sorted: folders first, then by name without regard to case, raw bytes breaking ties.
class FileTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column
    {
        NameColumn,
        SizeColumn,
        ModeColumn,
        OwnerColumn,
        ModifiedColumn,
        ColumnCount
    };
    enum Role
    {
        PathRole = Qt::UserRole + 1, ///< QByteArray: absolute guest path
        EntryTypeRole,               ///< int: SftpEntry::Type
        SizeRole,                    ///< qint64: bytes
    };

    /// Shows the folder `rootPath` (absolute) of the guest reached through `sftp`, which the
    /// model shares with its loads so it stays valid while one is in flight.
    FileTreeModel(std::shared_ptr<SftpClient> sftp, const QByteArray& rootPath,
                  QObject* parent = nullptr);
    ~FileTreeModel() override;

    QByteArray rootPath() const;

    /// Shows another folder, from scratch.
    void setRootPath(const QByteArray& rootPath);

    /// Lists folder `index` (the root when invalid) again, and then every folder under it that
    /// was loaded: rows of entries still there stay (with their loaded folders, so a view keeps
    /// their expansion and selection) and take the new attributes, rows of entries gone are
    /// removed, new entries are added in listing order. A folder that can no longer be listed
    /// loses its rows (loadFailed). folderLoaded follows for each folder listed.
    void refresh(const QModelIndex& index = {});

    /// The index of `path` when it is loaded (the root's is invalid), else an invalid index.
    QModelIndex indexForPath(const QByteArray& path) const;

    /// True while some folder is being listed.
    bool isLoading() const { return m_loading > 0; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

Q_SIGNALS:
    /// Folder `path` was listed completely.
    void folderLoaded(const QByteArray& path);
    /// Listing folder `path` failed; `message` is a sentence.
    void loadFailed(const QByteArray& path, const QString& message);

private:
    struct Node;
    Node* nodeOf(const QModelIndex& index) const;
    QModelIndex indexOf(const Node* node) const;
    void startLoad(Node* node);
    void addBatch(quint64 nodeId, quint64 generation, const QList<SftpEntry>& entries);
    void finishLoad(quint64 nodeId, quint64 generation, const Expected<void>& listed);
    /// Lists a loaded folder again off the GUI thread; mergeListing() takes the answer.
    void startReload(Node* node);
    void mergeListing(quint64 nodeId, quint64 generation, const Expected<QList<SftpEntry>>& listed);
    /// Removes the children for which `gone` is true (in runs of adjacent rows).
    void removeChildren(Node* node, const std::function<bool(const Node&)>& gone);
    /// Puts `node`'s children in listing order (layoutChanged; persistent indexes follow).
    void sortChildren(Node* node);
    void forget(Node* node);

    std::shared_ptr<SftpClient> m_sftp;
    std::shared_ptr<PostBack<FileTreeModel>> m_postBack; ///< listings report through it
    std::unique_ptr<Node> m_root;
    QHash<quint64, Node*> m_nodes; ///< by id, for loads that report after a refresh
    quint64 m_nextId = 1;
    int m_loading = 0;
};

} // namespace sbw
