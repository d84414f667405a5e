#include "browser/BrowserLaunch.h"

#include "base/VisibleText.h"

#include <QList>
#include <QString>

namespace sbw::browser_launch {
namespace {

/// Chromium's switches. No sandbox: the guest runs everything as root, and the microVM is the
/// sandbox. No GPU, first-run, sync, component updates or background networking: none has a
/// use in a headless guest, and the background requests would each be an egress request a
/// person is asked about. The DevTools server binds to the guest's loopback only.
QByteArray chromiumArguments(quint16 proxyPort)
{
    QByteArray arguments =
        "--no-sandbox --disable-gpu --no-first-run --disable-sync --disable-background-networking "
        "--disable-component-update --disable-default-apps --mute-audio --hide-scrollbars "
        "--remote-debugging-address=127.0.0.1 --remote-debugging-port=0 "
        "--user-data-dir=" + QByteArray(kProfileDir) + " --window-size=" + QByteArray::number(kViewportWidth) + ',' +
        QByteArray::number(kViewportHeight);
    // Allowlist: every request goes through the egress proxy like any program's; loopback
    // stays in the guest (Chromium never proxies it).
    if (proxyPort != 0)
        arguments += " --proxy-server=http://127.0.0.1:" + QByteArray::number(proxyPort);
    return arguments;
}

} // namespace

QByteArray ensureRunningCommand(quint16 proxyPort)
{
    const QByteArray profile = kProfileDir;
    const QByteArray run = kRunDir;
    const QByteArray port = profile + "/DevToolsActivePort";
    // DevToolsActivePort holds two lines (port, path) without a final newline. A browser of
    // this profile without our pid file (started by hand, or the pid file's folder was
    // emptied) would keep the profile locked, so it is ended before a new one starts; it is
    // found by its process name (the kernel keeps 15 characters), as its command line would
    // also match this script's own shell.
    return "command -v chromium-headless-shell >/dev/null || "
           "{ echo 'this image has no browser: create the workspace from the browser image' >&2; exit 3; }\n"
           "mkdir -p " + profile + " " + run + " " + kDownloadDir + "\n"
           "if [ -s " + run + "/pid ] && kill -0 \"$(cat " + run + "/pid)\" 2>/dev/null && [ -n \"$(sed -n 2p " + port + " 2>/dev/null)\" ]; then\n"
           "  cat " + port + "; exit 0\n"
           "fi\n"
           "pkill -KILL -x chromium-headle && sleep 0.5\n"
           "rm -f " + port + "\n"
           "setsid -f sh -c 'echo $$ >" + run + "/pid; exec chromium-headless-shell " + chromiumArguments(proxyPort) +
           " about:blank' >" + run + "/log 2>&1 </dev/null\n"
           "i=0\n"
           "while [ -z \"$(sed -n 2p " + port + " 2>/dev/null)\" ]; do\n"
           "  i=$((i + 1))\n"
           "  if [ $i -gt 1200 ]; then echo 'the browser did not start within 120 s:' >&2; tail -n 5 " + run + "/log >&2; exit 1; fi\n"
           "  sleep 0.1\n"
           "done\n"
           "cat " + port + "\n";
}

Expected<DevToolsEndpoint> parseEndpoint(const QByteArray& output)
{
    const QList<QByteArray> lines = output.trimmed().split('\n');
    bool ok = false;
    const uint port = lines.value(0).trimmed().toUInt(&ok);
    const QByteArray path = lines.value(1).trimmed();
    if (lines.size() != 2 || !ok || port == 0 || port > 65535 || !path.startsWith("/devtools/browser/"))
        return makeError(QStringLiteral("the browser did not report its DevTools port (it printed \"%1\")")
                             .arg(oneLineVisible(QString::fromUtf8(output), 200)));
    return DevToolsEndpoint{quint16(port), path};
}

} // namespace sbw::browser_launch
