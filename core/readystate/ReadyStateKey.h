#pragma once

#include <QString>

namespace sbw {

/// Everything a saved ready state depends on: a state is only restored into a sandbox for which
/// each of these is the same (the saved memory holds the kernel of that image build, the client
/// key on its command line, a guest of that size on that accelerator and QEMU).
struct ReadyStateInputs
{
    QString buildId;      ///< GuestImage::buildId: recipe hash and build
    int memoryMiB = 0;
    int vcpus = 0;
    int cpuSharePercent = 0;
    qint64 diskBytes = 0; ///< the overlay's virtual size
    bool kvm = false;
    QString clientKey;    ///< the public key the guest accepts (sbw.key)
    unsigned long libvirtVersion = 0;         ///< virConnectGetLibVersion
    unsigned long hypervisorVersion = 0;      ///< virConnectGetVersion (QEMU)
};

/// "sbw-state-<build id>-<16 hex digits of a SHA-256 of the rest>": the stem of the state's
/// volumes. A rebuilt image, other limits, another key or another QEMU give another name, so a
/// stale state is never found (ReadyStateStore::prune deletes it).
QString readyStateName(const ReadyStateInputs& inputs);

/// "sbw-state-<recipe hash>-": the names of every state of one recipe, whatever its build.
QString readyStatePrefix(const QString& recipeHash);

} // namespace sbw
