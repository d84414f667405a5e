#include "mcp/McpResources.h"

#include "base/GuestTextDecoder.h"
#include "mcp/McpJsonRpc.h"
#include "run/RunArtifacts.h"

#include <QFile>
#include <QJsonArray>

#include <algorithm>

namespace sbw::mcp {

QJsonObject McpResource::listEntry() const
{
    return {{QStringLiteral("uri"), uri},
            {QStringLiteral("name"), name},
            {QStringLiteral("description"), description},
            {QStringLiteral("mimeType"), mimeType},
            {QStringLiteral("size"), size}};
}

void McpResourceList::add(const QList<McpResource>& resources)
{
    for (const McpResource& resource : resources) {
        std::erase_if(m_entries, [&](const Entry& entry) { return entry.resource.uri == resource.uri; });
        m_entries.push_back({++m_lastSequence, resource});
    }
    while (m_entries.size() > std::size_t(kMaxResources))
        m_entries.pop_front();
}

std::optional<McpResource> McpResourceList::find(const QString& uri) const
{
    const auto found = std::find_if(m_entries.cbegin(), m_entries.cend(),
                                    [&](const Entry& entry) { return entry.resource.uri == uri; });
    if (found == m_entries.cend())
        return std::nullopt;
    return found->resource;
}

Expected<QJsonObject> McpResourceList::page(const std::optional<QString>& cursor) const
{
    qint64 after = 0;
    if (cursor) {
        bool number = false;
        after = cursor->toLongLong(&number);
        if (!number || after < 1 || after > m_lastSequence)
            return makeError(QStringLiteral("invalid cursor: %1").arg(*cursor));
    }
    auto it = std::find_if(m_entries.cbegin(), m_entries.cend(), [after](const Entry& entry) { return entry.sequence > after; });
    QJsonArray list;
    for (; it != m_entries.cend() && list.size() < kPageSize; ++it)
        list.append(it->resource.listEntry());
    QJsonObject result{{QStringLiteral("resources"), list}};
    if (it != m_entries.cend())
        result.insert(QStringLiteral("nextCursor"), QString::number(std::prev(it)->sequence));
    return result;
}

ResourceRead readResource(const McpResource& resource)
{
    ResourceRead read;
    QFile file(resource.hostPath);
    if (!file.exists()) {
        read.errorCode = kResourceNotFound;
        read.error = QStringLiteral("Resource not found");
        return read;
    }
    if (file.size() > kMaxResourceReadBytes) {
        read.errorCode = kInternalError;
        read.error = QStringLiteral("%1 holds %2; resources/read returns files up to %3")
                         .arg(resource.uri, byteSizeText(file.size()), byteSizeText(kMaxResourceReadBytes));
        return read;
    }
    QByteArray bytes;
    if (file.open(QIODevice::ReadOnly))
        bytes = file.readAll();
    if (!file.isOpen() || file.error() != QFileDevice::NoError) {
        read.errorCode = kInternalError;
        read.error = QStringLiteral("cannot read %1 on the host: %2").arg(resource.uri, file.errorString());
        return read;
    }
    read.contents = {{QStringLiteral("uri"), resource.uri}, {QStringLiteral("mimeType"), resource.mimeType}};
    if (isValidUtf8(bytes))
        read.contents.insert(QStringLiteral("text"), QString::fromUtf8(bytes));
    else
        read.contents.insert(QStringLiteral("blob"), QString::fromLatin1(bytes.toBase64()));
    return read;
}

} // namespace sbw::mcp
