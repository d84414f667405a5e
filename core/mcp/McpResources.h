#pragma once

#include "base/Expected.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <deque>
#include <optional>

namespace sbw::mcp {

/// A file the MCP server offers through resources/list and resources/read: an artifact of a
/// run_code call, kept on the host.
struct McpResource
{
    QString uri;         ///< e.g. "sbw://runs/sbw-run-20260101-120000-0a1b/out/chart.png"
    QString name;        ///< e.g. "out/chart.png"
    QString description; ///< e.g. "written by run_code in the microVM sbw-run-20260101-120000-0a1b"
    QString mimeType;    ///< e.g. "image/png"
    qint64 size = 0;     ///< bytes, when it was offered
    QString hostPath;    ///< the host copy that resources/read returns

    /// The resources/list entry: uri, name, description, mimeType, size.
    QJsonObject listEntry() const;
};

/// The largest file resources/read returns (base64 in one message, like read_file's 16 MiB).
constexpr qint64 kMaxResourceReadBytes = qint64(16) << 20;

/// The resources a server offers, oldest first, at most kMaxResources (the oldest are
/// forgotten). Not thread-safe: the server's thread only.
class McpResourceList
{
public:
    static constexpr int kMaxResources = 10000;
    /// Entries per resources/list page.
    static constexpr int kPageSize = 500;

    /// Offers `resources` (after those already offered; a URI offered again replaces the old entry).
    void add(const QList<McpResource>& resources);
    std::optional<McpResource> find(const QString& uri) const;
    qsizetype size() const { return qsizetype(m_entries.size()); }

    /// The resources/list result for `cursor` (absent: the first page): `resources`, and
    /// `nextCursor` when more follow. Cursors stay valid while resources are added. Error:
    /// "invalid cursor: CURSOR" for a cursor this list did not give.
    Expected<QJsonObject> page(const std::optional<QString>& cursor) const;

private:
    struct Entry
    {
        qint64 sequence; ///< increasing from 1: what cursors count
        McpResource resource;
    };
    std::deque<Entry> m_entries;
    qint64 m_lastSequence = 0;
};

/// What resources/read answers for one resource: its contents entry, or a JSON-RPC error.
struct ResourceRead
{
    QJsonObject contents; ///< uri, mimeType and `text` (valid UTF-8) or base64 `blob`
    int errorCode = 0;    ///< 0, kResourceNotFound (the host copy is gone) or kInternalError
    QString error;        ///< "Resource not found"; "URI holds 20.0 MiB; resources/read returns
                          ///< files up to 16.0 MiB"; "cannot read URI on the host: REASON"
};

/// Reads `resource`'s host copy. Blocks: call on a worker thread.
ResourceRead readResource(const McpResource& resource);

} // namespace sbw::mcp
