#pragma once

#include "base/OutputStream.h"
#include "guest/GuestSession.h"

#include <QByteArray>
#include <QJsonObject>
#include <mutex>

namespace sbw {

/// stdout and stderr of an exec or run_code call as its MCP reply carries them: the first
/// kReplyBytes of each stream (cut back to a whole UTF-8 character), and the sizes of the
/// whole streams. A reply therefore holds at most 2 × kReplyBytes of output however much the
/// command wrote (more after JSON escaping: up to 6 bytes per control character); the command
/// log keeps the whole output. Thread-safe: output may come from any thread.
class McpCommandOutput
{
public:
    /// Bytes of each stream a reply carries: 1 MiB.
    static constexpr qint64 kReplyBytes = qint64(1) << 20;

    explicit McpCommandOutput(qint64 replyBytes = kReplyBytes) : m_replyBytes(replyBytes) {}

    void add(OutputStream stream, QByteArrayView bytes);

    /// The structuredContent of the call (commandOutputSchema()): stdout, stderr (as much as a
    /// reply carries, UTF-8 with invalid bytes replaced), stdout_bytes, stderr_bytes (whole
    /// streams), exit_status, signal, timed_out, duration_ms (`ms`) and output_note: empty when
    /// the whole output is there, else which stream was cut at which size and where the whole
    /// output is: row `logRow` of the command log (`sbw log --output ID --stream STREAM`).
    QJsonObject structured(const ExecStatus& status, qint64 ms, qint64 logRow) const;

    /// The JSON Schema of structured().
    static QJsonObject schema();

private:
    qint64 m_replyBytes;
    mutable std::mutex m_mutex;
    QByteArray m_kept[2];
    qint64 m_total[2] = {0, 0};
};

} // namespace sbw
