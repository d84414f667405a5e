#include "base/Async.h"

namespace sbw {
namespace {

struct BlockingPool : QThreadPool
{
    BlockingPool() { setMaxThreadCount(16); }
};

} // namespace

QThreadPool* blockingPool()
{
    // Destroyed at exit like Qt's global pool: its destructor waits for work still running.
    static BlockingPool pool;
    return &pool;
}

} // namespace sbw
