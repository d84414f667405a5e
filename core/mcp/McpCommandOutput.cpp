#include "mcp/McpCommandOutput.h"

#include "mcp/McpToolSchema.h"

#include <QJsonArray>

namespace sbw {

using namespace mcp;

namespace {

int index(OutputStream stream)
{
    return stream == OutputStream::Stdout ? 0 : 1;
}

/// `bytes` without a UTF-8 sequence cut at its end (so the reply shows no U+FFFD there).
QByteArray wholeCharacters(QByteArray bytes)
{
    qsizetype start = bytes.size();
    for (int back = 0; back < 4 && start > 0; ++back) {
        const auto byte = static_cast<unsigned char>(bytes.at(start - 1));
        if ((byte & 0xC0) != 0x80) { // the lead byte (or ASCII) of the last sequence
            const int length = byte < 0x80    ? 1
                               : byte >= 0xF0 ? 4
                               : byte >= 0xE0 ? 3
                               : byte >= 0xC0 ? 2
                                              : 1;
            if (bytes.size() - (start - 1) < length)
                bytes.truncate(start - 1);
            return bytes;
        }
        --start;
    }
    return bytes;
}

} // namespace

void McpCommandOutput::add(OutputStream stream, QByteArrayView bytes)
{
    std::lock_guard lock(m_mutex);
    const int i = index(stream);
    m_total[i] += bytes.size();
    const qint64 room = m_replyBytes - m_kept[i].size();
    if (room > 0)
        m_kept[i].append(bytes.first(std::min<qsizetype>(room, bytes.size())));
}

QJsonObject McpCommandOutput::structured(const ExecStatus& status, qint64 ms, qint64 logRow) const
{
    std::lock_guard lock(m_mutex);
    QJsonObject result;
    QStringList cut;
    for (int i : {0, 1}) {
        const QString name = i == 0 ? QStringLiteral("stdout") : QStringLiteral("stderr");
        const bool whole = m_total[i] <= m_replyBytes;
        result.insert(name, QString::fromUtf8(whole ? m_kept[i] : wholeCharacters(m_kept[i])));
        result.insert(name + QStringLiteral("_bytes"), m_total[i]);
        if (whole)
            continue;
        QString note =
            QStringLiteral(
                "%1 has %2 bytes; this reply holds its first %3 (the cap is %4 bytes a stream)")
                .arg(name)
                .arg(m_total[i])
                .arg(wholeCharacters(m_kept[i]).size())
                .arg(m_replyBytes);
        note += logRow ? QStringLiteral("; the whole of it is in row %1 of the command log: sbw "
                                        "log --output %1 --stream %2")
                             .arg(logRow)
                             .arg(name)
                       : QStringLiteral("; the rest was not kept (no command log)");
        cut << note;
    }
    result.insert(QStringLiteral("exit_status"),
                  status.exitStatus ? QJsonValue(*status.exitStatus) : QJsonValue());
    result.insert(QStringLiteral("signal"),
                  status.signal ? QJsonValue(*status.signal) : QJsonValue());
    result.insert(QStringLiteral("timed_out"), status.timedOut);
    result.insert(QStringLiteral("duration_ms"), ms);
    result.insert(QStringLiteral("output_note"), cut.join(QStringLiteral(". ")));
    return result;
}

QJsonObject McpCommandOutput::schema()
{
    return objectSchema(
        {{QStringLiteral("stdout"),
          stringSchema(QStringLiteral(
              "What the command wrote to stdout, up to 1 MiB (UTF-8; invalid bytes replaced); "
              "output_note says when there was more."))},
         {QStringLiteral("stderr"),
          stringSchema(QStringLiteral("What it wrote to stderr, up to 1 MiB."))},
         {QStringLiteral("stdout_bytes"),
          integerSchema(QStringLiteral("Bytes written to stdout in all."), 0)},
         {QStringLiteral("stderr_bytes"),
          integerSchema(QStringLiteral("Bytes written to stderr in all."), 0)},
         {QStringLiteral("exit_status"),
          nullableIntegerSchema(QStringLiteral("Exit status, null when a signal ended it."))},
         {QStringLiteral("signal"),
          nullableIntegerSchema(QStringLiteral("Signal number that ended it, or null."))},
         {QStringLiteral("timed_out"),
          booleanSchema(QStringLiteral("Killed because the timeout ran out."))},
         {QStringLiteral("duration_ms"),
          integerSchema(QStringLiteral("Wall-clock time in ms."), 0)},
         {QStringLiteral("output_note"),
          stringSchema(QStringLiteral(
              "Empty when stdout and stderr are whole; otherwise which stream was cut and "
              "the command-log row that has all of it."))}},
        {QStringLiteral("stdout"), QStringLiteral("stderr"), QStringLiteral("stdout_bytes"),
         QStringLiteral("stderr_bytes"), QStringLiteral("exit_status"), QStringLiteral("signal"),
         QStringLiteral("timed_out"), QStringLiteral("duration_ms"),
         QStringLiteral("output_note")});
}

} // namespace sbw
