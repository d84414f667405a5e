#include "files/FileTreeModel.h"

#include "files/FileEntryText.h"

#include <QApplication>
#include <QSet>
#include <QStyle>
#include <algorithm>

namespace sbw {

struct FileTreeModel::Node
{
    enum class State
    {
        NotLoaded,
        Loading,
        Loaded
    };

    quint64 id = 0;
    Node* parent = nullptr;
    int row = 0;
    QByteArray path;
    SftpEntry entry;
    FileListingKey sortKey; ///< its place in the listing order
    std::vector<std::unique_ptr<Node>> children;
    State state = State::NotLoaded;
    quint64 generation = 0; ///< bumped by refresh; loads of older generations are dropped

    bool isFolder() const { return entry.type == SftpEntry::Type::Directory; }
};

namespace {

QByteArray childPath(const QByteArray& folder, const QByteArray& name)
{
    return folder.endsWith('/') ? folder + name : folder + '/' + name;
}

/// Whether the listing shows `a` and `b` alike (same name assumed).
bool sameAttributes(const SftpEntry& a, const SftpEntry& b)
{
    return a.type == b.type && a.size == b.size && a.mode == b.mode && a.uid == b.uid &&
           a.gid == b.gid && a.owner == b.owner && a.group == b.group && a.mtime == b.mtime;
}

} // namespace

FileTreeModel::FileTreeModel(std::shared_ptr<SftpClient> sftp, const QByteArray& rootPath,
                             QObject* parent)
    : QAbstractItemModel(parent), m_sftp(std::move(sftp)),
      m_postBack(std::make_shared<PostBack<FileTreeModel>>(this))
{
    setRootPath(rootPath);
}

FileTreeModel::~FileTreeModel()
{
    m_postBack->close();
}

QByteArray FileTreeModel::rootPath() const
{
    return m_root->path;
}

void FileTreeModel::setRootPath(const QByteArray& rootPath)
{
    beginResetModel();
    m_nodes.clear();
    m_root = std::make_unique<Node>();
    m_root->id = m_nextId++;
    m_root->path = rootPath;
    m_root->entry.type = SftpEntry::Type::Directory;
    m_nodes.insert(m_root->id, m_root.get());
    endResetModel();
}

void FileTreeModel::refresh(const QModelIndex& index)
{
    Node* node = nodeOf(index);
    if (!node->isFolder())
        return;
    if (node->state == Node::State::Loaded) {
        startReload(node);
        return;
    }
    // Never listed, or a listing under way that may predate what changed: list it afresh.
    removeChildren(node, [](const Node&) { return true; });
    ++node->generation;
    node->state = Node::State::NotLoaded;
    startLoad(node);
}

void FileTreeModel::startReload(Node* node)
{
    ++m_loading;
    const quint64 id = node->id;
    const quint64 generation = ++node->generation; // a reload already under way is dropped
    const QByteArray path = node->path;
    runAsync([sftp = m_sftp, postBack = m_postBack, id, generation, path] {
        auto listed = sftp->listDirectory(path);
        postBack->post([id, generation, listed](FileTreeModel* model) {
            model->mergeListing(id, generation, listed);
        });
    });
}

void FileTreeModel::mergeListing(quint64 nodeId, quint64 generation,
                                 const Expected<QList<SftpEntry>>& listed)
{
    --m_loading;
    Node* node = m_nodes.value(nodeId);
    if (!node || node->generation != generation)
        return;
    if (!listed) {
        // What the folder holds is not known any more: no stale rows.
        removeChildren(node, [](const Node&) { return true; });
        if (node != m_root.get())
            Q_EMIT dataChanged(indexOf(node), indexOf(node));
        Q_EMIT loadFailed(node->path, listed.error().message);
        return;
    }
    QHash<QByteArray, const SftpEntry*> fresh;
    for (const SftpEntry& entry : listed.value())
        fresh.insert(entry.name, &entry);
    // Gone, or a folder that became something else (or the reverse): removed.
    removeChildren(node, [&](const Node& child) {
        const SftpEntry* now = fresh.value(child.entry.name);
        return !now || (now->type == SftpEntry::Type::Directory) != child.isFolder();
    });
    QList<SftpEntry> added;
    QSet<QByteArray> kept;
    for (auto& child : node->children) {
        const SftpEntry& now = *fresh.value(child->entry.name);
        kept.insert(now.name);
        if (!sameAttributes(child->entry, now)) {
            child->entry = now;
            child->sortKey = FileListingKey::of(now);
            Q_EMIT dataChanged(indexOf(child.get()),
                               index(child->row, ColumnCount - 1, indexOf(node)));
        }
    }
    for (const SftpEntry& entry : listed.value()) {
        if (!kept.contains(entry.name))
            added.append(entry);
    }
    addBatch(node->id, generation, added);
    sortChildren(node);
    if (node->children.empty() && node != m_root.get())
        Q_EMIT dataChanged(indexOf(node), indexOf(node));
    Q_EMIT folderLoaded(node->path);
    for (auto& child : node->children) {
        if (child->isFolder() && child->state == Node::State::Loaded)
            startReload(child.get());
    }
}

void FileTreeModel::removeChildren(Node* node, const std::function<bool(const Node&)>& gone)
{
    auto& children = node->children;
    const QModelIndex parent = indexOf(node);
    // Runs of rows from the last one up, so the rows before a run keep their numbers.
    for (int last = int(children.size()) - 1; last >= 0;) {
        if (!gone(*children[size_t(last)])) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && gone(*children[size_t(first - 1)]))
            --first;
        beginRemoveRows(parent, first, last);
        for (int row = first; row <= last; ++row)
            forget(children[size_t(row)].get());
        children.erase(children.begin() + first, children.begin() + last + 1);
        for (size_t row = size_t(first); row < children.size(); ++row)
            children[row]->row = int(row);
        endRemoveRows();
        last = first - 1;
    }
}

QModelIndex FileTreeModel::indexForPath(const QByteArray& path) const
{
    for (const Node* node : m_nodes) {
        if (node->path == path)
            return indexOf(node);
    }
    return {};
}

void FileTreeModel::forget(Node* node)
{
    m_nodes.remove(node->id);
    for (auto& child : node->children)
        forget(child.get());
}

FileTreeModel::Node* FileTreeModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex FileTreeModel::indexOf(const Node* node) const
{
    return node == m_root.get() ? QModelIndex()
                                : createIndex(node->row, 0, const_cast<Node*>(node));
}

QModelIndex FileTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    const Node* node = nodeOf(parent);
    if (row < 0 || column < 0 || column >= ColumnCount || row >= int(node->children.size()))
        return {};
    return createIndex(row, column, node->children[size_t(row)].get());
}

QModelIndex FileTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    return indexOf(nodeOf(child)->parent);
}

int FileTreeModel::rowCount(const QModelIndex& parent) const
{
    if (parent.column() > 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int FileTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

bool FileTreeModel::hasChildren(const QModelIndex& parent) const
{
    if (parent.column() > 0)
        return false;
    const Node* node = nodeOf(parent);
    return node->isFolder() && (node->state != Node::State::Loaded || !node->children.empty());
}

bool FileTreeModel::canFetchMore(const QModelIndex& parent) const
{
    if (parent.column() > 0)
        return false;
    const Node* node = nodeOf(parent);
    return node->isFolder() && node->state == Node::State::NotLoaded;
}

void FileTreeModel::fetchMore(const QModelIndex& parent)
{
    if (canFetchMore(parent))
        startLoad(nodeOf(parent));
}

void FileTreeModel::startLoad(Node* node)
{
    node->state = Node::State::Loading;
    ++m_loading;
    const quint64 id = node->id;
    const quint64 generation = node->generation;
    const QByteArray path = node->path;
    runAsync([sftp = m_sftp, postBack = m_postBack, id, generation, path] {
        auto listed = sftp->listDirectory(path, [&](const QList<SftpEntry>& batch) {
            postBack->post([id, generation, batch](FileTreeModel* model) {
                model->addBatch(id, generation, batch);
            });
        });
        const Expected<void> done = listed ? Expected<void>() : Expected<void>(listed.error());
        postBack->post([id, generation, done](FileTreeModel* model) {
            model->finishLoad(id, generation, done);
        });
    });
}

void FileTreeModel::addBatch(quint64 nodeId, quint64 generation, const QList<SftpEntry>& entries)
{
    Node* node = m_nodes.value(nodeId);
    if (!node || node->generation != generation || entries.isEmpty())
        return;
    const int first = int(node->children.size());
    beginInsertRows(indexOf(node), first, first + int(entries.size()) - 1);
    for (const SftpEntry& entry : entries) {
        auto child = std::make_unique<Node>();
        child->id = m_nextId++;
        child->parent = node;
        child->row = int(node->children.size());
        child->path = childPath(node->path, entry.name);
        child->entry = entry;
        child->sortKey = FileListingKey::of(entry);
        m_nodes.insert(child->id, child.get());
        node->children.push_back(std::move(child));
    }
    endInsertRows();
}

void FileTreeModel::sortChildren(Node* node)
{
    auto& children = node->children;
    const auto before = [](const std::unique_ptr<Node>& a, const std::unique_ptr<Node>& b) {
        return a->sortKey < b->sortKey;
    };
    if (std::is_sorted(children.begin(), children.end(), before))
        return;
    const QList<QPersistentModelIndex> parents{QPersistentModelIndex(indexOf(node))};
    Q_EMIT layoutAboutToBeChanged(parents, VerticalSortHint);
    std::stable_sort(children.begin(), children.end(), before);
    for (size_t row = 0; row < children.size(); ++row)
        children[row]->row = int(row);
    QModelIndexList from;
    QModelIndexList to;
    for (const QModelIndex& index : persistentIndexList()) {
        auto* moved = static_cast<Node*>(index.internalPointer());
        if (moved->parent == node && moved->row != index.row()) {
            from.append(index);
            to.append(createIndex(moved->row, index.column(), moved));
        }
    }
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged(parents, VerticalSortHint);
}

void FileTreeModel::finishLoad(quint64 nodeId, quint64 generation, const Expected<void>& listed)
{
    --m_loading;
    Node* node = m_nodes.value(nodeId);
    if (!node || node->generation != generation)
        return;
    node->state = Node::State::Loaded;
    sortChildren(node);
    // A folder that turned out empty (or unreadable) loses its expander.
    if (node->children.empty() && node != m_root.get())
        Q_EMIT dataChanged(indexOf(node), indexOf(node));
    if (listed)
        Q_EMIT folderLoaded(node->path);
    else
        Q_EMIT loadFailed(node->path, listed.error().message);
}

QVariant FileTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Node* node = nodeOf(index);
    const SftpEntry& entry = node->entry;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return fileNameText(entry.name);
        case SizeColumn:
            return fileSizeText(entry);
        case ModeColumn:
            return fileModeText(entry.mode);
        case OwnerColumn:
            return fileOwnerText(entry);
        case ModifiedColumn:
            return fileModifiedText(entry);
        default:
            return {};
        }
    case Qt::ToolTipRole:
        return index.column() == NameColumn ? fileNameText(node->path) : QVariant();
    case Qt::DecorationRole:
        if (index.column() != NameColumn || !qApp)
            return {};
        return QApplication::style()->standardIcon(
            entry.type == SftpEntry::Type::Directory ? QStyle::SP_DirIcon
            : entry.type == SftpEntry::Type::Symlink ? QStyle::SP_FileLinkIcon
                                                     : QStyle::SP_FileIcon);
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                            : QVariant();
    case PathRole:
        return node->path;
    case EntryTypeRole:
        return int(entry.type);
    case SizeRole:
        return entry.size;
    default:
        return {};
    }
}

QVariant FileTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case SizeColumn:
        return tr("Size");
    case ModeColumn:
        return tr("Mode");
    case OwnerColumn:
        return tr("Owner");
    case ModifiedColumn:
        return tr("Modified");
    default:
        return {};
    }
}

Qt::ItemFlags FileTreeModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::ItemIsDropEnabled;
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (nodeOf(index)->isFolder())
        flags = (flags & ~Qt::ItemNeverHasChildren) | Qt::ItemIsDropEnabled;
    return flags;
}

} // namespace sbw
