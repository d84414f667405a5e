#pragma once

#include <QString>

namespace sbw::test {

/// The benchmarks' baseline: packaging/guest/boot-raw.sh boots the cached image `minimal` with
/// plain QEMU on `accel` ("kvm" or "tcg") and `vcpus`, to the guest's ready line. Its time in
/// ms; -1 (and the script's stderr on ours) when it failed.
qint64 rawBootMs(const QString& accel, int vcpus);

} // namespace sbw::test
