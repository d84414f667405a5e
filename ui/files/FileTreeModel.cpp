#include "files/FileTreeModel.h"

#include "files/FileEntryText.h"

#include <QApplication>
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

} // namespace

FileTreeModel::FileTreeModel(std::shared_ptr<SftpClient> sftp, const QByteArray& rootPath,
                             QObject* parent)
    : QAbstractItemModel(parent), m_sftp(std::move(sftp)), m_postBack(std::make_shared<PostBack<FileTreeModel>>(this))
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
    if (!node->children.empty()) {
        beginRemoveRows(index, 0, int(node->children.size()) - 1);
        for (auto& child : node->children)
            forget(child.get());
        node->children.clear();
        endRemoveRows();
    }
    ++node->generation;
    node->state = Node::State::NotLoaded;
    startLoad(node);
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
