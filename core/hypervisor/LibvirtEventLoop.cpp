#include "hypervisor/LibvirtEventLoop.h"

#include "base/Logging.h"
#include "hypervisor/VirtError.h"

#include <libvirt/libvirt.h>

#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <QThread>

#include <atomic>
#include <csignal>
#include <thread>

namespace sbw {

namespace {
/// releaseAfterCallbacks() objects not dropped yet.
std::atomic_int g_pendingReleases{0};
} // namespace

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
    // Objects given to releaseAfterCallbacks() just before exit: one iteration fires their
    // timers, the next runs the free callbacks libvirt defers to the loop.
    virEventUpdateTimeout(d->wakeTimer, 0);
    for (int turn = 0; turn < 4 && g_pendingReleases > 0; ++turn)
        virEventRunDefaultImpl();
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

void LibvirtEventLoop::releaseAfterCallbacks(std::shared_ptr<void> object)
{
    // A timer due at once, removed when it fires; its free callback, which libvirt calls on the
    // loop's thread after that iteration, drops the reference.
    auto* held = new std::shared_ptr<void>(std::move(object));
    ++g_pendingReleases;
    const int timer = virEventAddTimeout(
        0, [](int timer, void*) { virEventRemoveTimeout(timer); }, held,
        [](void* opaque) {
            delete static_cast<std::shared_ptr<void>*>(opaque);
            --g_pendingReleases;
        });
    if (timer < 0) { // no loop to wait for: nothing can be running on it
        delete held;
        --g_pendingReleases;
    }
}

void LibvirtEventLoop::prepareProcess()
{
    qputenv("QT_NO_GLIB", "1");
    std::signal(SIGPIPE, SIG_IGN);
}

void LibvirtEventLoop::ensureRunning()
{
    const QCoreApplication* app = QCoreApplication::instance();
    const QAbstractEventDispatcher* dispatcher = app ? app->thread()->eventDispatcher() : nullptr;
    if (dispatcher && QByteArray(dispatcher->metaObject()->className()).contains("Glib"))
        qFatal("Qt uses the GLib event dispatcher, which conflicts with libvirt's event loop: "
               "call sbw::LibvirtEventLoop::prepareProcess() before creating the application "
               "(or set QT_NO_GLIB=1)");
    static LibvirtEventLoop instance; // thread-safe initialisation, joined at exit
}

} // namespace sbw
