#include "LibvirtEventLoop.h"

#include "Logging.h"
#include "VirtError.h"

#include <libvirt/libvirt.h>

#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <QThread>

#include <atomic>
#include <csignal>
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
