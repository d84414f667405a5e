#pragma once

#include "base/OutputStream.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QTimer>

#include <mutex>
#include <utility>

namespace sbw {

/// Collects output that worker threads receive and hands it to the batcher's own thread at
/// most once per 50 ms: consecutive bytes of one stream are merged and the order between
/// streams is kept, so a command printing megabytes cannot flood the event loop.
///
/// append() may be called from any thread; outputReceived() is emitted on the batcher's thread
/// from start() until stop(), and by flush().
class OutputBatcher : public QObject
{
    Q_OBJECT

public:
    static constexpr int kIntervalMs = 50;

    explicit OutputBatcher(QObject* parent = nullptr);

    void append(OutputStream stream, QByteArrayView bytes);
    void start() { m_timer.start(); }
    void stop() { m_timer.stop(); }
    /// Emits everything appended so far now.
    void flush();

Q_SIGNALS:
    void outputReceived(sbw::OutputStream stream, const QByteArray& bytes);

private:
    QTimer m_timer;
    std::mutex m_mutex;
    QList<std::pair<OutputStream, QByteArray>> m_pending;
};

} // namespace sbw

Q_DECLARE_METATYPE(sbw::OutputStream)
