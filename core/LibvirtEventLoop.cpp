#include "LibvirtEventLoop.h"

#include "Logging.h"
#include "VirtError.h"

#include <libvirt/libvirt.h>

#include <atomic>
#include <thread>

namespace sbw {

struct LibvirtEventLoop::Private
{
    std::atomic_bool stopping{false};
    int wakeTimer = -1;
    std::thread thread;
};

LibvirtEventLoop::LibvirtEventLoop() : d(new Private)
{
    silenceLibvirtErrorPrinting();
    if (virEventRegisterDefaultImpl() < 0)
        qCCritical(lcVirt) << "cannot register the libvirt event loop:" << lastVirtErrorMessage();
    // A timer that never fires on its own; shutdown arms it so virEventRunDefaultImpl returns.
    d->wakeTimer = virEventAddTimeout(-1, [](int, void*) {}, nullptr, nullptr);
    d->thread = std::thread([this] { run(); });
}

LibvirtEventLoop::~LibvirtEventLoop()
{
    d->stopping = true;
    virEventUpdateTimeout(d->wakeTimer, 0);
    if (d->thread.joinable())
        d->thread.join();
    virEventRemoveTimeout(d->wakeTimer);
    delete d;
}

void LibvirtEventLoop::run()
{
    while (!d->stopping) {
        if (virEventRunDefaultImpl() < 0)
            qCWarning(lcVirt) << "libvirt event loop iteration failed:" << lastVirtErrorMessage();
    }
}

void LibvirtEventLoop::ensureRunning()
{
    static LibvirtEventLoop instance; // thread-safe initialisation, joined at exit
}

} // namespace sbw
