// sbw-screenshot-tour: the README's screenshots of the real window on real microVMs, as a new
// user has it after a few minutes: four workspaces (one paused), commands and a checkpoint, a
// terminal, a sign-up form filled in by the person in a workspace's browser, an ephemeral run
// that gave back a table and a chart, and an agent connected over MCP whose two actions wait
// for approval. Each pane is grabbed at every window size given.
//
//     sbw-screenshot-tour [--keep] [--suffix TEXT] OUTDIR WIDTHxHEIGHT...
//
// writes OUTDIR/<pane>-<W>x<H><suffix>.png and new-workspace-dialog<suffix>.png. Workspaces
// agent-1, data-lab, scratch and web (browser image) are made (and started) when missing, and
// removed at the end unless --keep. Started by tests/screenshots/take-screenshots.sh under Xvfb, with settings and
// data in a temporary home.

#include "agents/AgentsPane.h"
#include "approval/ApprovalQueue.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "browser/BrowserView.h"
#include "browser/WorkspaceBrowserPage.h"
#include "files/WorkspaceFilesPage.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/RunPane.h"
#include "terminal/SerialConsoleView.h"
#include "terminal/TerminalTab.h"
#include "terminal/TerminalTabs.h"
#include "terminal/TerminalWidget.h"
#include "widgets/SandboxPageStack.h"
#include "window/MainWindow.h"
#include "window/SessionListPane.h"
#include "workbench/Workbench.h"
#include "workspace/NewWorkspaceDialog.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceActions.h"
#include "workspace/WorkspaceManager.h"
#include "workspace/WorkspacePane.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <cstdio>
#include <cstdlib>

using namespace sbw;

namespace {

struct WorkspaceSpec
{
    QString name;
    int vcpus;
    int memoryMiB;
    WorkspaceNetwork network;
    QString recipe = QStringLiteral("minimal");
};

const QList<WorkspaceSpec> kWorkspaces = {
    {QStringLiteral("agent-1"), 1, 512, WorkspaceNetwork::None},
    {QStringLiteral("data-lab"), 2, 1024, WorkspaceNetwork::Nat},
    {QStringLiteral("scratch"), 1, 256, WorkspaceNetwork::None},
    {QStringLiteral("web"), 1, 1024, WorkspaceNetwork::None, QStringLiteral("browser")},
};

/// The page the person fills in, in the Browser tab of workspace web; places in CSS pixels.
const QByteArray kSignupPage =
    "<!doctype html><html><head><title>Sign up</title><style>"
    "body{margin:0;font-family:sans-serif;background:#f4f6fa}"
    "header{background:#2050c0;color:white;padding:24px 48px;font-size:28px}"
    "#name{position:absolute;left:48px;top:160px;width:320px;height:36px;font-size:18px}"
    "#send{position:absolute;left:400px;top:160px;width:120px;height:42px;font-size:18px}"
    "#out{position:absolute;left:48px;top:230px;font-size:22px}"
    "</style></head><body><header>Sign up for the newsletter</header>"
    "<label style=\"position:absolute;left:48px;top:130px\">Your name</label><input id=\"name\">"
    "<button id=\"send\" onclick=\"document.getElementById('out').textContent = 'Welcome, ' + "
    "document.getElementById('name').value + '!'\">Send</button><p id=\"out\"></p></body></html>\n";

/// The ephemeral run: a table and a chart (SVG, no libraries needed) under out/.
const QString kRunScript =
    QStringLiteral(R"(# Monthly sign-ups: a CSV table and an SVG chart in out/
import csv, math, os

months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
signups = [round(60 + 50 * math.sin(i / 2) + 8 * i) for i in range(12)]
os.makedirs("out", exist_ok=True)
with open("out/signups.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["month", "signups"])
    writer.writerows(zip(months, signups))
bars = "".join(
    f'<rect x="{30 + i * 46}" y="{230 - n}" width="34" height="{n}" fill="#3b7dd8"/>'
    f'<text x="{47 + i * 46}" y="248" font-size="12" text-anchor="middle">{m}</text>'
    for i, (m, n) in enumerate(zip(months, signups)))
with open("out/chart.svg", "w") as f:
    f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="590" height="260">'
            f'<rect width="590" height="260" fill="white"/>{bars}</svg>')
for m, n in zip(months, signups):
    print(f"{m}  {'#' * (n // 5)} {n}")
print(f"{sum(signups)} sign-ups in all; best month {months[signups.index(max(signups))]}")
)");

[[noreturn]] void fail(const QString& what)
{
    std::fprintf(stderr, "sbw-screenshot-tour: %s\n", qPrintable(what));
    std::exit(1);
}

void waitFor(const std::function<bool()>& condition, int seconds, const QString& what)
{
    if (!QTest::qWaitFor(condition, seconds * 1000))
        fail(QStringLiteral("gave up after %1 s waiting for %2").arg(seconds).arg(what));
}

class Tour
{
public:
    Tour(MainWindow& window, const QByteArray& token, QString outDir, QString suffix)
        : m_window(window), m_token(token), m_outDir(std::move(outDir)), m_suffix(std::move(suffix))
    {}

    /// Makes and starts the workspaces that are missing; true when it made them all.
    bool makeWorkspaces();
    void useWorkspaces(bool made);
    void runScript();
    void connectAgent();
    void shootEveryPane(QSize size);
    void shootBrowser();
    void shootNewWorkspaceDialog();
    void removeWorkspaces();

private:
    QDockWidget* dock(const char* name) const
    {
        return m_window.findChild<QDockWidget*>(QLatin1String(name));
    }
    void showDocks(const QList<const char*>& names);
    void select(const QString& workspace, QWidget* tab);
    void typeCommand(const QString& command);
    void shoot(QWidget* widget, const QString& pane);
    void postMcp(const QJsonObject& message, std::function<void(QNetworkReply*)> done = {});

    MainWindow& m_window;
    QByteArray m_token;
    QString m_outDir;
    QString m_suffix;
    QSize m_size;
    QNetworkAccessManager m_network;
    QByteArray m_mcpSession;
};

bool Tour::makeWorkspaces()
{
    WorkspaceManager* manager = m_window.workspaceManager();
    if (auto listed = manager->refresh(); !listed)
        fail(listed.error().message);
    bool made = true;
    for (const WorkspaceSpec& spec : kWorkspaces) {
        if (manager->workspace(spec.name)) {
            made = false; // by an earlier tour (--keep)
            continue;
        }
        WorkspaceSettings settings;
        settings.vcpus = spec.vcpus;
        settings.memoryMiB = spec.memoryMiB;
        settings.recipe = spec.recipe;
        settings.network = spec.network;
        QSignalSpy finished(m_window.workspaceActions(), &WorkspaceActions::operationFinished);
        m_window.workspaceActions()->create(spec.name, settings, true);
        waitFor([&] { return finished.size() == 2; }, 300,
                QStringLiteral("%1 to be made and started").arg(spec.name));
        for (const QList<QVariant>& signal : finished) {
            const auto report = signal.at(0).value<OperationReport>();
            if (!report.result)
                fail(QStringLiteral("%1 of %2: %3")
                         .arg(report.what, spec.name, report.result.error().message));
        }
    }
    for (const WorkspaceSpec& spec : kWorkspaces) {
        // Running: its guest agent answers (a later tour finds scratch paused).
        const auto booted = [&] {
            const WorkspaceState state = manager->state(spec.name);
            return state == WorkspaceState::Running || state == WorkspaceState::Paused;
        };
        waitFor(booted, 300, QStringLiteral("%1 to boot").arg(spec.name));
    }
    return made;
}

void Tour::useWorkspaces(bool made)
{
    WorkspaceManager* manager = m_window.workspaceManager();
    // A checkpoint before the commands, so that the timeline has one.
    if (auto workspace = manager->workspace(QStringLiteral("agent-1")); workspace && made) {
        if (auto taken =
                workspace->checkpoint(QStringLiteral("fresh"), QStringLiteral("as created"));
            !taken)
            fail(taken.error().message);
    }
    select(QStringLiteral("agent-1"), m_window.workspacePane());
    typeCommand(QStringLiteral("mkdir -p project && printf 'print(6 * 7)\\n' > project/main.py"));

    if (auto web = manager->workspace(QStringLiteral("web"))) {
        ExecRequest request;
        request.command = "cat >/root/signup.html";
        request.stdinData = kSignupPage;
        if (auto put = web->exec(request, std::chrono::steady_clock::now() + std::chrono::minutes(2)); !put)
            fail(put.error().message);
    }

    select(QStringLiteral("scratch"), m_window.workspacePane());
    if (canPause(manager->state(QStringLiteral("scratch")))) {
        m_window.workspaceActions()->pauseAction()->trigger();
        waitFor([&] { return manager->state(QStringLiteral("scratch")) == WorkspaceState::Paused; },
                60, QStringLiteral("scratch to pause"));
    }
}

void Tour::select(const QString& workspace, QWidget* tab)
{
    m_window.sessionList()->select(workspace);
    if (tab)
        m_window.workspaceTabs()->setCurrentWidget(tab);
    QTest::qWait(200); // the page shows
}

void Tour::typeCommand(const QString& command)
{
    WorkspacePane* pane = m_window.workspacePane();
    QSignalSpy finished(pane, &WorkspacePane::commandFinished);
    pane->commandLine()->setText(command);
    QTest::keyClick(pane->commandLine(), Qt::Key_Return);
    waitFor([&] { return finished.size() == 1; }, 180, command);
}

void Tour::runScript()
{
    m_window.sessionList()->select(QString());
    RunPane* pane = m_window.runPane();
    pane->setLanguage(Language::Python);
    pane->setScript(kRunScript);
    if (!pane->run())
        fail(QStringLiteral("the run did not start"));
    waitFor([&] { return !pane->isRunning(); }, 600, QStringLiteral("the run"));
    if (!pane->lastResult() || !pane->lastResult()->error.isEmpty())
        fail(QStringLiteral("the run failed: %1").arg(pane->statusText()));
}

void Tour::postMcp(const QJsonObject& message, std::function<void(QNetworkReply*)> done)
{
    QNetworkRequest request(QUrl(
        QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_window.agentsPane()->portBox()->value())));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    request.setRawHeader("Authorization", "Bearer " + m_token);
    request.setRawHeader("MCP-Protocol-Version", "2025-06-18");
    if (!m_mcpSession.isEmpty())
        request.setRawHeader("Mcp-Session-Id", m_mcpSession);
    QNetworkReply* reply =
        m_network.post(request, QJsonDocument(message).toJson(QJsonDocument::Compact));
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, done] {
        if (done)
            done(reply);
        reply->deleteLater();
    });
}

void Tour::connectAgent()
{
    AgentsPane* agents = m_window.agentsPane();
    if (!agents->serverAction()->isChecked())
        agents->serverAction()->trigger();
    if (!agents->serverAction()->isChecked())
        fail(QStringLiteral("the MCP server did not start"));
    bool initialized = false;
    postMcp(
        QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), 1},
            {QStringLiteral("method"), QStringLiteral("initialize")},
            {QStringLiteral("params"),
             QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                         {QStringLiteral("capabilities"), QJsonObject{}},
                         {QStringLiteral("clientInfo"),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-code")},
                                      {QStringLiteral("version"), QStringLiteral("1.0.51")}}}}}},
        [this, &initialized](QNetworkReply* reply) {
            m_mcpSession = reply->rawHeader("Mcp-Session-Id");
            initialized = true;
        });
    waitFor([&] { return initialized; }, 30, QStringLiteral("the MCP initialize"));
    if (m_mcpSession.isEmpty())
        fail(QStringLiteral("the MCP server gave no session"));
    postMcp(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), QStringLiteral("notifications/initialized")}});
    const auto call = [this](int id, const QString& tool, const QJsonObject& arguments) {
        postMcp(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id},
            {QStringLiteral("method"), QStringLiteral("tools/call")},
            {QStringLiteral("params"), QJsonObject{{QStringLiteral("name"), tool},
                                                   {QStringLiteral("arguments"), arguments}}}});
    };
    // No policy file: a new user's agents are asked for everything.
    call(2, QStringLiteral("exec"),
         QJsonObject{{QStringLiteral("workspace"), QStringLiteral("data-lab")},
                     {QStringLiteral("command"),
                      QStringLiteral("pip install --quiet pandas && python3 -c 'import pandas; "
                                     "print(pandas.__version__)'")}});
    call(3, QStringLiteral("write_file"),
         QJsonObject{{QStringLiteral("workspace"), QStringLiteral("agent-1")},
                     {QStringLiteral("path"), QStringLiteral("/root/project/main.py")},
                     {QStringLiteral("content"),
                      QStringLiteral("import sys\n\nprint(6 * 7, file=sys.stdout)\n")}});
    waitFor([&] { return m_window.approvalQueue()->pending().size() == 2; }, 60,
            QStringLiteral("the agent's actions to wait for approval"));
}

void Tour::showDocks(const QList<const char*>& names)
{
    for (const char* name : {"resourceDock", "commandLogDock", "approvalDock", "agentsDock"})
        dock(name)->setVisible(names.contains(name));
    for (const char* name : names)
        dock(name)->raise();
    QTest::qWait(300); // the docks lay out and paint
}

void Tour::shoot(QWidget* widget, const QString& pane)
{
    QApplication::processEvents();
    const QString size = m_size.isValid()
                             ? QStringLiteral("-%1x%2").arg(m_size.width()).arg(m_size.height())
                             : QString();
    const QString path = QStringLiteral("%1/%2%3%4.png").arg(m_outDir, pane, size, m_suffix);
    if (m_size.isValid() &&
        widget->size() != m_size) // its minimum size is larger: something does not fit
        std::fprintf(stderr, "sbw-screenshot-tour: warning: %s is %dx%d, not the %dx%d asked for\n",
                     qPrintable(path), widget->width(), widget->height(), m_size.width(),
                     m_size.height());
    if (!widget->grab().save(path, "PNG", 0)) // 0: the smallest file
        fail(QStringLiteral("cannot write %1").arg(path));
    std::printf("%s\n", qPrintable(path));
}

void Tour::shootEveryPane(QSize size)
{
    m_size = size;
    m_window.setGeometry(QRect(QPoint(0, 0), size));
    showDocks({});

    m_window.sessionList()->select(QString());
    m_window.runPane()->runTabs()->setCurrentIndex(0);
    shoot(&m_window, QStringLiteral("run"));

    // The pane shows the output of the commands run since the workspace was selected.
    select(QStringLiteral("agent-1"), m_window.workspacePane());
    typeCommand(QStringLiteral("python3 --version; uname -sr; python3 project/main.py"));
    typeCommand(QStringLiteral("df -h / | tail -1; ls -l project"));
    shoot(&m_window, QStringLiteral("workspace"));

    select(QStringLiteral("agent-1"), m_window.terminals());
    auto* tabs = qobject_cast<TerminalTabs*>(m_window.terminals()->page(QStringLiteral("agent-1")));
    waitFor([&] { return tabs && tabs->count() > 0; }, 120, QStringLiteral("the terminal"));
    TerminalWidget* terminal = tabs->tab(0)->terminal();
    QTest::keyClicks(terminal,
                     QStringLiteral("clear; ls -la --color=always /root; python3 project/main.py"));
    QTest::keyClick(terminal, Qt::Key_Return);
    waitFor([&] { return terminal->screenText().contains(QStringLiteral("\n42")); }, 60,
            QStringLiteral("the terminal's output"));
    shoot(&m_window, QStringLiteral("terminal"));

    select(QStringLiteral("agent-1"), m_window.files());
    auto* files =
        qobject_cast<WorkspaceFilesPage*>(m_window.files()->page(QStringLiteral("agent-1")));
    waitFor(
        [&] {
            return files->tree() && files->tree()->model()->indexForPath("/root/project").isValid();
        },
        120, QStringLiteral("the file tree"));
    QTest::qWait(500); // the rows paint
    shoot(&m_window, QStringLiteral("files"));

    shootBrowser();

    // The console shows what comes after it attached: Enter brings the root shell's prompt.
    select(QStringLiteral("agent-1"), m_window.consoles());
    auto* console =
        qobject_cast<SerialConsoleView*>(m_window.consoles()->page(QStringLiteral("agent-1")));
    QTest::keyClick(console->terminal(), Qt::Key_Return);
    QTest::keyClicks(console->terminal(), QStringLiteral("uname -a; uptime"));
    QTest::keyClick(console->terminal(), Qt::Key_Return);
    waitFor(
        [&] { return console->terminal()->screenText().contains(QStringLiteral("load average")); },
        60, QStringLiteral("the serial console's shell"));
    shoot(&m_window, QStringLiteral("serial-console"));

    select(QStringLiteral("data-lab"), m_window.workspacePane());
    showDocks({"resourceDock"});
    shoot(&m_window, QStringLiteral("resources"));
    showDocks({"commandLogDock"});
    shoot(&m_window, QStringLiteral("command-log"));
    showDocks({"approvalDock", "agentsDock"});
    shoot(&m_window, QStringLiteral("approvals-agents"));
    showDocks({"resourceDock", "commandLogDock", "approvalDock", "agentsDock"});
    shoot(&m_window, QStringLiteral("every-dock"));
    showDocks({});
}

/// The person has taken over web's browser, opened the sign-up page, typed a name and sent it.
void Tour::shootBrowser()
{
    select(QStringLiteral("web"), m_window.browsers());
    auto* page = qobject_cast<WorkspaceBrowserPage*>(m_window.browsers()->page(QStringLiteral("web")));
    waitFor([&] { return page->takeOverButton()->isEnabled(); }, 300, QStringLiteral("web's browser"));
    if (page->pageTitle() != QLatin1String("Sign up")) {
        if (!page->isHeld())
            page->takeOver();
        page->addressLine()->setText(QStringLiteral("file:///root/signup.html"));
        QTest::keyClick(page->addressLine(), Qt::Key_Return);
        waitFor([&] { return page->pageTitle() == QLatin1String("Sign up"); }, 120, QStringLiteral("the sign-up page"));
        // A point of the view that shows CSS pixel (x, y) of the 1280-pixel-wide page.
        const auto at = [page](int x, int y) {
            const QRectF frame = page->view()->frameRect();
            const double scale = frame.width() / 1280;
            return (frame.topLeft() + QPointF(x * scale, y * scale)).toPoint();
        };
        QTest::mouseClick(page->view(), Qt::LeftButton, {}, at(200, 178));
        QTest::keyClicks(page->view(), QStringLiteral("Ada Lovelace"));
        QTest::mouseClick(page->view(), Qt::LeftButton, {}, at(460, 181));
        waitFor([&] { return !page->isStepPending(); }, 120, QStringLiteral("the person's steps"));
        QTest::qWait(3000); // the last frame arrives
    }
    shoot(&m_window, QStringLiteral("browser"));
}

void Tour::shootNewWorkspaceDialog()
{
    NewWorkspaceDialog dialog(&m_window);
    dialog.findChild<QLineEdit*>(QStringLiteral("nameEdit"))->setText(QStringLiteral("agent-2"));
    dialog.show();
    QTest::qWait(300);
    m_size = QSize(); // one size: the dialog's own
    shoot(&dialog, QStringLiteral("new-workspace-dialog"));
}

void Tour::removeWorkspaces()
{
    for (const WorkspaceSpec& spec : kWorkspaces) {
        if (auto workspace = m_window.workspaceManager()->workspace(spec.name)) {
            if (auto removed = workspace->remove(); !removed)
                std::fprintf(stderr, "sbw-screenshot-tour: removing %s: %s\n",
                             qPrintable(spec.name), qPrintable(removed.error().message));
        }
    }
}

} // namespace

int main(int argc, char* argv[])
{
    LibvirtEventLoop::prepareProcess();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("sandbox-workbench"));
    QApplication::setApplicationName(QStringLiteral("sandbox-workbench"));
    QStringList args = QApplication::arguments().mid(1);
    const bool keep = args.removeAll(QStringLiteral("--keep")) > 0;
    QString suffix;
    if (const int at = args.indexOf(QStringLiteral("--suffix")); at >= 0 && at + 1 < args.size()) {
        suffix = args.at(at + 1);
        args.remove(at, 2);
    }
    if (args.size() < 2)
        fail(QStringLiteral(
            "usage: sbw-screenshot-tour [--keep] [--suffix TEXT] OUTDIR WIDTHxHEIGHT..."));
    const QString outDir = args.takeFirst();
    QList<QSize> sizes;
    for (const QString& size : args) {
        const QStringList parts = size.split(QLatin1Char('x'));
        if (parts.size() != 2 || parts[0].toInt() <= 0 || parts[1].toInt() <= 0)
            fail(QStringLiteral("not a size: %1").arg(size));
        sizes << QSize(parts[0].toInt(), parts[1].toInt());
    }
    // One run, one microVM: no pre-booted microVM to wait for the next.
    QSettings().setValue(QStringLiteral("run/keepMicroVmReady"), false);

    HypervisorConnection connection(defaultConnectionUri());
    if (auto opened = connection.ensureOpen(); !opened)
        fail(opened.error().message);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.setGeometry(QRect(QPoint(0, 0), sizes.first()));
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        fail(QStringLiteral("the window was not shown"));

    Tour tour(window, workbench.mcpToken(), outDir, suffix);
    tour.useWorkspaces(tour.makeWorkspaces());
    tour.runScript();
    tour.connectAgent();
    for (const QSize& size : sizes)
        tour.shootEveryPane(size);
    tour.shootNewWorkspaceDialog();
    if (!keep)
        tour.removeWorkspaces();
    window.close();
    return 0;
}
