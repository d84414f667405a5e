#include "ExecTiming.h"

#include "BenchStats.h"
#include "guest/GuestSession.h"

#include <QElapsedTimer>

#include <vector>

namespace sbw::test {

qint64 medianExecMs(GuestSession& session, const QByteArray& command, int repetitions)
{
    std::vector<qint64> times;
    for (int i = 0; i < repetitions; ++i) {
        ExecRequest request;
        request.command = command;
        QElapsedTimer timer;
        timer.start();
        if (!session.exec(request))
            return -1;
        times.push_back(timer.elapsed());
    }
    return median(times);
}

} // namespace sbw::test
