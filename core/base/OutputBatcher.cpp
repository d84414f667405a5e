#include "base/OutputBatcher.h"

namespace sbw {

OutputBatcher::OutputBatcher(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<sbw::OutputStream>();
    m_timer.setInterval(kIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &OutputBatcher::flush);
}

void OutputBatcher::append(OutputStream stream, QByteArrayView bytes)
{
    std::lock_guard lock(m_mutex);
    if (!m_pending.isEmpty() && m_pending.last().first == stream)
        m_pending.last().second.append(bytes);
    else
        m_pending.append({stream, bytes.toByteArray()});
}

void OutputBatcher::flush()
{
    QList<std::pair<OutputStream, QByteArray>> pending;
    {
        std::lock_guard lock(m_mutex);
        pending.swap(m_pending);
    }
    for (const auto& [stream, bytes] : pending)
        Q_EMIT outputReceived(stream, bytes);
}

} // namespace sbw
