#pragma once

#include "base/Expected.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <atomic>
#include <mutex>
#include <type_traits>
#include <utility>

namespace sbw {

/// The one way to do blocking work off the GUI thread and come back to an object: run it on
/// blockingPool() (runAsync), then deliver its result to a guard object on the guard's thread
/// unless the guard was destroyed first (onFinished); runThen() does both. The work must not
/// touch the guard: it captures what it needs by value (shared pointers, copies), so nothing
/// dangles when the guard goes first. Work that reports before it ends (progress, batches of
/// a listing) posts through a PostBack the guard owns.

/// The pool for blocking calls (libvirt, SSH, SFTP, SQLite). Its threads mostly wait on the
/// guest or the daemon, so it holds more of them than the host has cores (16): a slow
/// workspace start never queues a file-tree listing behind it.
QThreadPool* blockingPool();

/// Runs `work()` on `pool`; the future holds its result. An object whose destructor must wait
/// for its work (rows that must end) owns a pool of its own and passes it.
template <typename Work>
auto runAsync(QThreadPool* pool, Work&& work)
{
    return QtConcurrent::run(pool, std::forward<Work>(work));
}

/// Runs `work()` on blockingPool().
template <typename Work>
auto runAsync(Work&& work)
{
    return runAsync(blockingPool(), std::forward<Work>(work));
}

/// Calls `then(result)` (`then()` for a QFuture<void>) on `guard`'s thread once `future` has
/// finished, unless `guard` has been destroyed by then (the watcher is its child, so it goes
/// with it and `then` is never called).
template <typename T, typename Then>
void onFinished(const QFuture<T>& future, QObject* guard, Then&& then)
{
    auto* watcher = new QFutureWatcher<T>(guard);
    QObject::connect(watcher, &QFutureWatcherBase::finished, guard,
                     [watcher, then = std::forward<Then>(then)]() mutable {
                         watcher->deleteLater();
                         if constexpr (std::is_void_v<T>)
                             then();
                         else
                             then(watcher->future().result());
                     });
    watcher->setFuture(future);
}

/// runAsync(pool, work), then onFinished(guard, then).
template <typename Work, typename Then>
void runThen(QThreadPool* pool, QObject* guard, Work&& work, Then&& then)
{
    onFinished(runAsync(pool, std::forward<Work>(work)), guard, std::forward<Then>(then));
}

/// runAsync(work), then onFinished(guard, then).
template <typename Work, typename Then>
void runThen(QObject* guard, Work&& work, Then&& then)
{
    runThen(blockingPool(), guard, std::forward<Work>(work), std::forward<Then>(then));
}

/// The way back for worker threads that use an object living on another thread's event loop
/// (a BrowserSession): calls `start(reply)` on `context`'s thread and blocks until `reply` is
/// called, or for at most `timeout` (then: "… did not answer within N s"). `reply` may be
/// called from any thread, and later calls are ignored. Must not be called on `context`'s
/// thread.
template <typename T>
Expected<T> callAndWait(QObject* context, std::function<void(std::function<void(Expected<T>)>)> start,
                        std::chrono::seconds timeout)
{
    auto promise = std::make_shared<std::promise<Expected<T>>>();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    std::function<void(Expected<T>)> reply = [promise, answered](Expected<T> result) {
        if (!answered->exchange(true))
            promise->set_value(std::move(result));
    };
    std::future<Expected<T>> future = promise->get_future();
    QMetaObject::invokeMethod(context, [start = std::move(start), reply] { start(reply); }, Qt::QueuedConnection);
    if (future.wait_for(timeout) != std::future_status::ready)
        reply(makeError(QStringLiteral("the call did not answer within %1 s").arg(timeout.count())));
    return future.get();
}

/// Lets work on other threads call into `object` on the object's thread while it lives. The
/// object makes it (std::make_shared) and calls close() in its destructor; posts after that are
/// dropped, and so are posts still queued when it is destroyed (Qt removes a deleted
/// receiver's events). Thread-safe.
template <typename T>
class PostBack
{
public:
    explicit PostBack(T* object) : m_object(object) {}

    /// Calls `function(object)` on the object's thread, unless close() came first.
    void post(std::function<void(T*)> function)
    {
        std::lock_guard lock(m_mutex);
        if (m_object)
            QMetaObject::invokeMethod(
                m_object, [object = m_object, function = std::move(function)] { function(object); },
                Qt::QueuedConnection);
    }

    /// From the object's destructor.
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_object = nullptr;
    }

private:
    std::mutex m_mutex;
    T* m_object;
};

} // namespace sbw
