// A workspace's browser against the same Chromium started by hand, in one guest, in one run.
//
// One workspace from the browser image (1 GiB, no network) holds a test page
// (/root/page.html: a heading, a field, a button). Two figures, medians of N, each next to its
// baseline: Chromium's own --screenshot mode started over SSH with the same switches, which
// starts the browser, loads the page, writes a PNG and exits.
//   - start → first screenshot: the guest's browser ended first, then BrowserSession (start in
//     the guest, DevTools over the SSH session, attach) and BrowserPage::screenshot(); baseline:
//     `chromium-headless-shell --screenshot about:blank` over SSH.
//   - navigate → screenshot: on a ready session, BrowserPage::navigate(page) then screenshot();
//     baseline: `chromium-headless-shell --screenshot file:///root/page.html` over SSH (a cold
//     browser for every page: what a tool without a session pays).
// Every figure is timed on the host, so the baselines include one SSH exec as ours include
// theirs.
//
//   QT_NO_GLIB=1 flock /tmp/sbw-guest.lock build/tests/bench/bench_browser [N]   (default 5)

#include "BenchStats.h"
#include "BenchWorkspace.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "browser/BrowserLaunch.h"
#include "browser/BrowserPage.h"
#include "browser/BrowserSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "workspace/Workspace.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLoggingCategory>

#include <cstdio>
#include <vector>

namespace {

using namespace sbw;
using test::failBench;

const QByteArray kPage = "<!doctype html><title>Bench</title><h1>A page</h1><input id=name><button>Send</button>\n";
const QString kPageUrl = QStringLiteral("file:///root/page.html");

/// Runs `start` on this thread's event loop and waits for its step.
BrowserStep awaitStep(const std::function<void(BrowserPage::Done)>& start)
{
    QEventLoop loop;
    std::optional<Expected<BrowserStep>> result;
    start([&](Expected<BrowserStep> step) {
        result = std::move(step);
        loop.quit();
    });
    if (!result)
        loop.exec();
    if (!result->ok())
        failBench(result->error().message);
    return result->value();
}

/// ms of Chromium's --screenshot of `url`, started by hand over SSH.
double byHand(Workspace& ws, const QString& url)
{
    QElapsedTimer timer;
    timer.start();
    const QByteArray out = test::shellOutput(
        ws, QStringLiteral("chromium-headless-shell --no-sandbox --disable-gpu --no-first-run --hide-scrollbars "
                           "--user-data-dir=/tmp/bench-profile --window-size=%1,%2 --screenshot=/tmp/bench.png %3 "
                           ">/dev/null 2>&1 && test -s /tmp/bench.png && echo shot")
                .arg(browser_launch::kViewportWidth)
                .arg(browser_launch::kViewportHeight)
                .arg(url));
    const double ms = timer.elapsed();
    if (out != "shot\n")
        failBench(QStringLiteral("the hand-started Chromium: %1").arg(QString::fromUtf8(out)));
    return ms;
}

/// ms from a guest without a running browser to the first screenshot through BrowserSession.
double startToScreenshot(const std::shared_ptr<Workspace>& ws)
{
    if (test::shellOutput(*ws, QStringLiteral("pkill -KILL -x chromium-headle; rm -f /run/sbw-browser/pid; echo ended")) != "ended\n")
        failBench(QStringLiteral("could not end the guest's browser"));
    QElapsedTimer timer;
    timer.start();
    BrowserSession session(ws, std::chrono::seconds(120));
    BrowserPage page(&session);
    const BrowserStep shot = awaitStep([&](BrowserPage::Done done) { page.screenshot(std::move(done)); });
    const double ms = timer.elapsed();
    if (shot.width != browser_launch::kViewportWidth)
        failBench(QStringLiteral("the screenshot is %1 px wide").arg(shot.width));
    return ms;
}

/// ms of navigate(page) and screenshot() on a ready session.
double navigateToScreenshot(BrowserPage& page)
{
    awaitStep([&](BrowserPage::Done done) { page.navigate(QStringLiteral("about:blank"), std::move(done)); });
    QElapsedTimer timer;
    timer.start();
    const BrowserStep loaded = awaitStep([&](BrowserPage::Done done) { page.navigate(kPageUrl, std::move(done)); });
    const BrowserStep shot = awaitStep([&](BrowserPage::Done done) { page.screenshot(std::move(done)); });
    const double ms = timer.elapsed();
    if (loaded.after.title != QLatin1String("Bench") || shot.png.isEmpty())
        failBench(QStringLiteral("the page did not load: %1").arg(loaded.after.url));
    return ms;
}

void measure(std::shared_ptr<Workspace> ws, int repetitions)
{
    if (!ws->start().ok())
        failBench(QStringLiteral("workspace %1 did not start").arg(ws->record().name));
    if (test::shellOutput(*ws, QStringLiteral("printf '%1' >/root/page.html && echo put").arg(QString::fromUtf8(kPage).trimmed())) != "put\n")
        failBench(QStringLiteral("could not write the page"));
    byHand(*ws, QStringLiteral("about:blank")); // untimed: the first start reads Chromium from disk
    std::vector<double> ours, theirs;
    for (int i = 0; i < repetitions; ++i) {
        ours.push_back(startToScreenshot(ws));
        theirs.push_back(byHand(*ws, QStringLiteral("about:blank")));
    }
    std::printf("  start -> first screenshot   workbench %7.0f ms   by hand (--screenshot about:blank) %7.0f ms   ratio %.2f\n",
                test::median(ours), test::median(theirs), test::median(ours) / test::median(theirs));
    std::fflush(stdout);

    BrowserSession session(ws, std::chrono::seconds(120));
    BrowserPage page(&session);
    awaitStep([&](BrowserPage::Done done) { page.current(std::move(done)); }); // untimed: connect
    ours.clear();
    theirs.clear();
    for (int i = 0; i < repetitions; ++i) {
        ours.push_back(navigateToScreenshot(page));
        theirs.push_back(byHand(*ws, kPageUrl));
    }
    std::printf("  navigate -> screenshot      workbench %7.0f ms   by hand (--screenshot of the page) %7.0f ms   ratio %.2f\n",
                test::median(ours), test::median(theirs), test::median(ours) / test::median(theirs));
}

} // namespace

int main(int argc, char* argv[])
{
    LibvirtEventLoop::prepareProcess();
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("sbw.*.info=false"));
    const int repetitions = argc > 1 ? std::max(1, atoi(argv[1])) : 5;

    HypervisorConnection connection(test::guestUri());
    if (auto opened = connection.ensureOpen(); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().message));
        return 1;
    }
    std::printf("%s; browser image, 1 GiB, 1 vCPU; medians of %d, timed on the host\n",
                qPrintable(HypervisorConnection::describe(connection.accelerator())), repetitions);
    WorkspaceSettings settings;
    settings.recipe = QStringLiteral("browser");
    settings.memoryMiB = 1024;
    return test::measureOnNewWorkspace(connection, QStringLiteral("bench-browser"), settings, "bench_browser",
                                       [&](Workspace& ws) {
        // BrowserSession keeps its workspace by shared_ptr; this one outlives every session.
        measure(std::shared_ptr<Workspace>(&ws, [](Workspace*) {}), repetitions);
    });
}
