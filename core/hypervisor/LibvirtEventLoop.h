#pragma once

#include <memory>

namespace sbw {

/// The process-wide libvirt event loop. libvirt dispatches domain events, keepalive and stream
/// callbacks only while some thread runs virEventRunDefaultImpl(); this class owns that thread.
/// ensureRunning() registers the default implementation (it must happen before the first
/// connection is opened) and starts the thread; it is idempotent and thread-safe. The thread is
/// stopped and joined at process exit.
///
/// libvirt's default implementation iterates GLib's global default main context, which Qt's
/// GLib event dispatcher also iterates on the main thread: both would then steal each other's
/// events (measured: keepalive replies went unread and the daemon's connection died after
/// 15 s). Every program therefore calls prepareProcess() before creating its Q*Application,
/// and ensureRunning() refuses to run under the GLib dispatcher.
class LibvirtEventLoop
{
public:
    /// Call first in main(): makes Qt use its own (non-GLib) event dispatcher by setting
    /// QT_NO_GLIB=1, and ignores SIGPIPE as libvirt requires of its applications.
    static void prepareProcess();

    static void ensureRunning();

    /// Drops `object` on the loop's thread once the callbacks running there now have returned.
    /// A stream or handle callback removed a moment ago may still be running: libvirt calls it
    /// outside its own lock, so the data it was given must outlive the removal. Callers pass
    /// that data as a plain pointer, without a free callback (libvirt 9.0's remote streams did
    /// not call a stream callback's free callback, which leaked its data), and release their
    /// reference through this after removing the callback. Any thread.
    static void releaseAfterCallbacks(std::shared_ptr<void> object);

private:
    LibvirtEventLoop();
    ~LibvirtEventLoop();
    void run();

    struct Private;
    Private* d;
};

} // namespace sbw
