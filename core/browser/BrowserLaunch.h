#pragma once

#include "base/Expected.h"

#include <QByteArray>
#include <QtGlobal>

namespace sbw {

/// The guest's browser: headless Chromium (the `browser` image's chromium-headless-shell),
/// started on demand, one per guest, detached from the SSH session that started it (it keeps
/// running while the host reconnects), with its DevTools protocol on the guest's 127.0.0.1
/// only, on a port the kernel picks (Chromium writes it to DevToolsActivePort in its profile).
namespace browser_launch {

/// Where the guest keeps the browser's profile (cookies, cache, DevToolsActivePort): in the
/// workspace's disk, so a login survives a restart of the browser or the workspace.
inline constexpr const char* kProfileDir = "/root/.cache/sbw-browser";
/// Where downloads land (visible in the Files tab).
inline constexpr const char* kDownloadDir = "/root/Downloads";
/// The browser's run folder: its pid and log.
inline constexpr const char* kRunDir = "/run/sbw-browser";
/// The viewport of the page, CSS pixels; screenshots have this size.
inline constexpr int kViewportWidth = 1280;
inline constexpr int kViewportHeight = 800;

/// Shell command line that prints the running browser's DevTools port and path (the two
/// lines of DevToolsActivePort), starting the browser first when none runs. `proxyPort`: the
/// egress proxy on the guest's loopback (allowlist network), 0 for none. Exits 3 when the image
/// has no Chromium, 1 when it did not come up within 120 s (the tail of its log on stderr).
QByteArray ensureRunningCommand(quint16 proxyPort);

/// Where the running browser listens, parsed from ensureRunningCommand()'s output.
struct DevToolsEndpoint
{
    quint16 port = 0;
    QByteArray path; ///< "/devtools/browser/<id>"
};
/// Errors: "the browser did not report its DevTools port" with what it printed.
Expected<DevToolsEndpoint> parseEndpoint(const QByteArray& output);

} // namespace browser_launch
} // namespace sbw
