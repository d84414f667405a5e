#pragma once

#include <QtGlobal>

#include <algorithm>
#include <vector>

namespace sbw::test {

/// The median of a benchmark's samples (ms or any other unit; the result has the same):
/// the middle one of an odd count, the upper of the two middle ones of an even count, -1 when
/// there are none (the benches record a failed step as -1 too).
template <typename T> T median(std::vector<T> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? T(-1) : values[values.size() / 2];
}

/// Throughput in MB/s (10^6 bytes per second) of `bytes` moved in `ms` milliseconds; 0 when
/// `ms` is not positive.
inline double mbPerSecond(qint64 bytes, qint64 ms)
{
    return ms > 0 ? double(bytes) / 1e6 / (double(ms) / 1000.0) : 0.0;
}

} // namespace sbw::test
