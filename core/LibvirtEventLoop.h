#pragma once

namespace sbw {

/// The process-wide libvirt event loop. libvirt dispatches domain events, keepalive and stream
/// callbacks only while some thread runs virEventRunDefaultImpl(); this class owns that thread.
/// ensureRunning() registers the default implementation (it must happen before the first
/// connection is opened) and starts the thread; it is idempotent and thread-safe. The thread is
/// stopped and joined at process exit.
class LibvirtEventLoop
{
public:
    static void ensureRunning();

private:
    LibvirtEventLoop();
    ~LibvirtEventLoop();
    void run();

    struct Private;
    Private* d;
};

} // namespace sbw
