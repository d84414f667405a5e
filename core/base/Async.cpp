#include "base/Async.h"

#include <QCoreApplication>

namespace sbw {
namespace {

struct BlockingPool : QThreadPool
{
    BlockingPool() { setMaxThreadCount(16); }
};

BlockingPool& pool()
{
    static BlockingPool pool;
    return pool;
}

std::mutex drainMutex;
QCoreApplication* drainedBy = nullptr; ///< the application object whose end waits for the pool

void drain()
{
    {
        std::lock_guard lock(drainMutex);
        drainedBy = nullptr;
    }
    pool().waitForDone();
}

} // namespace

QThreadPool* blockingPool()
{
    // Work still running after main() returns would meet Qt's statics being destroyed (Qt SQL's
    // connection list closes a database under a query still on it): the application object's
    // end waits for this pool, as it waits for Qt's global pool.
    if (QCoreApplication* app = QCoreApplication::instance()) {
        std::lock_guard lock(drainMutex);
        if (app != drainedBy) {
            drainedBy = app;
            qAddPostRoutine(drain);
        }
    }
    return &pool();
}

} // namespace sbw
