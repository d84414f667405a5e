// The main window without a guest: menus and shortcuts, the connection in the status bar, a
// failed run shown as text (no dialog), closing during a run waiting for its clean-up, every
// combination of the View menu's docks fitting a 1280x800 screen (saved as
// $SBW_SCREENSHOT_DIR/mainwindow-docks.png and mainwindow-docks-log.png when that variable is set),
// column headers whole at the window's minimum size, and what the next window remembers (size,
// docks, splitters, the run's image and limits; New Workspace's choices) in a temporary QSettings.

#include "TemporarySettings.h"
#include "agents/AgentsPane.h"
#include "approval/ApprovalQueue.h"
#include "approval/ApprovalQueuePane.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/RunLimitsEditor.h"
#include "run/RunPane.h"
#include "widgets/OutputView.h"
#include "window/ConnectionStatusLabel.h"
#include "window/MainWindow.h"
#include "workbench/Workbench.h"
#include "workspace/NewWorkspaceDialog.h"
#include "workspace/WorkspaceManager.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTableWidget>
#include <QTcpServer>
#include <QTreeWidget>
#include <QtTest>

using namespace sbw;

namespace {

/// A URI whose daemon socket does not exist: connecting fails at once, with libvirt's reason.
const QString kUnreachableUri =
    QStringLiteral("qemu+unix:///system?socket=/nonexistent/sbw-test.sock");

QAction* findAction(QMainWindow& window, const QString& text)
{
    for (QAction* menu : window.menuBar()->actions()) {
        for (QAction* action : menu->menu()->actions()) {
            if (action->text() == text)
                return action;
        }
    }
    return nullptr;
}

/// Whether text in `font` lines up in columns: every printable ASCII glyph and the box-drawing
/// characters advance by the same width. (QFontInfo::fixedPitch() is not the question: fontconfig
/// leaves fixed-width families with a few wide glyphs, such as Noto Sans Mono, unmarked.)
bool columnsLineUp(const QFont& font)
{
    const QFontMetricsF metrics(font);
    const qreal cell = metrics.horizontalAdvance(QLatin1Char('M'));
    QString sample = QStringLiteral("\u2500\u2502\u2588");
    for (char c = ' '; c <= '~'; ++c)
        sample += QLatin1Char(c);
    for (QChar c : sample) {
        if (metrics.horizontalAdvance(c) != cell)
            return false;
    }
    return cell > 0;
}

/// The visible sections of `header` narrower than their text and the header's margins (which
/// the style then elides), as "text: size < needed".
QStringList cutHeaders(const QHeaderView* header)
{
    const int margins = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    QStringList cut;
    for (int section = 0; section < header->count(); ++section) {
        if (header->isSectionHidden(section))
            continue;
        const QString text = header->model()->headerData(section, header->orientation()).toString();
        const int needed = header->fontMetrics().horizontalAdvance(text) + margins;
        if (header->sectionSize(section) < needed)
            cut << QStringLiteral("%1: %2 < %3")
                       .arg(text)
                       .arg(header->sectionSize(section))
                       .arg(needed);
    }
    return cut;
}

QDockWidget* dock(QMainWindow& window, const char* name)
{
    return window.findChild<QDockWidget*>(QLatin1String(name));
}

bool anyDialogVisible()
{
    for (QWidget* widget : QApplication::topLevelWidgets()) {
        if (widget->isVisible() && qobject_cast<QDialog*>(widget))
            return true;
    }
    return false;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void hasMenusAndShortcuts();
    void statusBarShowsConnectionAndAccelerator();
    void statusBarShowsUnreachableDaemon();
    void languageSwitchSwapsDefaultScript();
    void failedRunIsShownAsText();
    void escapeCancelsRun();
    void closeDuringRunWaitsForCleanup();
    void everyDockFits1280x800();
    void sessionsGetTheirWidthBackWhenDocksClose();
    void headersAreWholeAtTheMinimumSize();
    void layoutIsRestoredByTheNextWindow();
    void runImageAndLimitsAreRestored();
    void newWorkspaceStartsNowAndRemembersItsChoices();
    void newWorkspaceMemoryFollowsTheImage();

private:
    test::TemporarySettings m_settings; ///< never the person's settings
};

void TestMainWindow::init()
{
    m_settings.clear(); // each case starts as a first window does
}

void TestMainWindow::hasMenusAndShortcuts()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    QCOMPARE(window.windowTitle(), QStringLiteral("Sandbox Workbench"));
    QVERIFY(QFile::exists(QStringLiteral(":/icons/sandbox-workbench.svg")));
    QVERIFY(!window.windowIcon().pixmap(32, 32).isNull());

    QStringList menus;
    for (QAction* menu : window.menuBar()->actions())
        menus << menu->text();
    QCOMPARE(menus, (QStringList{QStringLiteral("&File"), QStringLiteral("&Run"),
                                 QStringLiteral("&Workspace"), QStringLiteral("&View"),
                                 QStringLiteral("&Agents"), QStringLiteral("&Help")}));

    QAction* open = findAction(window, QStringLiteral("&Open Script…"));
    QAction* quit = findAction(window, QStringLiteral("&Quit"));
    QAction* run = findAction(window, QStringLiteral("&Run"));
    QAction* cancel = findAction(window, QStringLiteral("&Cancel"));
    QVERIFY(open && quit && run && cancel &&
            findAction(window, QStringLiteral("&About Sandbox Workbench")));
    QCOMPARE(open->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_O));
    QCOMPARE(run->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Return));
    QCOMPARE(cancel->shortcut(), QKeySequence(Qt::Key_Escape));
    QVERIFY(run->isEnabled());
    QVERIFY(!cancel->isEnabled());

    // Workspace lifecycle: one shortcut each for pause and resume; nothing is selected yet,
    // so nothing but New is enabled.
    QAction* pause = findAction(window, QStringLiteral("&Pause"));
    QAction* resume = findAction(window, QStringLiteral("&Resume"));
    QVERIFY(pause && resume);
    QCOMPARE(pause->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    QCOMPARE(resume->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    QVERIFY(!pause->isEnabled());
    QVERIFY(!resume->isEnabled());

    RunPane* pane = window.runPane();
    QCOMPARE(pane->script(), QStringLiteral("print(\"Hello from the sandbox\")\n"));
    QVERIFY(columnsLineUp(pane->editor()->font()));
    QVERIFY(columnsLineUp(pane->outputView()->font()));
}

void TestMainWindow::statusBarShowsConnectionAndAccelerator()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QTRY_COMPARE(window.connectionStatus()->text(),
                 QStringLiteral("test:///default · TCG (software emulation, slow)"));
    QVERIFY(window.connectionStatus()->isConnected());
    // The first connection (the reattach at start) is not announced as a reconnection.
    QTRY_VERIFY(window.workspaceManager()->isConnected());
    QCOMPARE(window.statusBar()->currentMessage(), QString());
}

void TestMainWindow::statusBarShowsUnreachableDaemon()
{
    HypervisorConnection connection(kUnreachableUri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QTRY_COMPARE(window.connectionStatus()->text(),
                 kUnreachableUri + QStringLiteral(" · not connected"));
    QVERIFY(!window.connectionStatus()->toolTip().isEmpty());
}

void TestMainWindow::languageSwitchSwapsDefaultScript()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    RunPane pane(&connection);
    auto* language = pane.findChild<QComboBox*>(QStringLiteral("languageBox"));
    QVERIFY(language);
    language->setCurrentIndex(language->findText(QStringLiteral("Shell")));
    QCOMPARE(pane.language(), Language::Shell);
    QCOMPARE(pane.script(), QStringLiteral("echo \"Hello from the sandbox\"\n"));
    // An edited script is never replaced.
    pane.setScript(QStringLiteral("uname -a\n"));
    language->setCurrentIndex(language->findText(QStringLiteral("Python")));
    QCOMPARE(pane.script(), QStringLiteral("uname -a\n"));
}

void TestMainWindow::failedRunIsShownAsText()
{
    HypervisorConnection connection(kUnreachableUri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();

    // Ctrl+Return in the editor runs the script.
    pane->editor()->setFocus();
    QTest::keyClick(pane->editor(), Qt::Key_Return, Qt::ControlModifier);
    QVERIFY(pane->isRunning());
    QVERIFY(!pane->runButton()->isEnabled());
    QVERIFY(pane->cancelButton()->isEnabled());
    QCOMPARE(pane->script(),
             QStringLiteral("print(\"Hello from the sandbox\")\n")); // no newline typed

    QTRY_VERIFY_WITH_TIMEOUT(!pane->isRunning(), 30000);
    const QString status = pane->statusText();
    QVERIFY2(status.startsWith(QStringLiteral("Failed: cannot connect to libvirt")),
             qPrintable(status));
    QVERIFY2(pane->outputView()->shownText().startsWith(
                 QStringLiteral("The workbench could not complete the run: cannot connect")),
             qPrintable(pane->outputView()->shownText()));
    QVERIFY(!anyDialogVisible());
    QVERIFY(pane->runButton()->isEnabled());
    QVERIFY(!pane->cancelButton()->isEnabled());
}

void TestMainWindow::escapeCancelsRun()
{
    HypervisorConnection connection(kUnreachableUri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();
    QVERIFY(pane->run());
    QAction* cancel = findAction(window, QStringLiteral("&Cancel"));
    QVERIFY(cancel->isEnabled());

    pane->editor()->setFocus();
    QTest::keyClick(pane->editor(), Qt::Key_Escape);
    QVERIFY(pane->isCancelling());
    QVERIFY(!cancel->isEnabled());
    QVERIFY(!pane->cancelButton()->isEnabled());
    QCOMPARE(pane->statusText(), QStringLiteral("Cancelling…"));
    QTRY_VERIFY_WITH_TIMEOUT(!pane->isRunning(), 30000);
    QVERIFY(findAction(window, QStringLiteral("&Run"))->isEnabled());
}

void TestMainWindow::closeDuringRunWaitsForCleanup()
{
    HypervisorConnection connection(kUnreachableUri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.runPane()->run());

    // The run is still in progress (its worker only just started): the close is deferred.
    QVERIFY(!window.close());
    QVERIFY(window.isVisible());
    QVERIFY(window.isClosePending());
    QVERIFY(window.statusBar()->currentMessage().startsWith(QStringLiteral("Cleaning up…")));

    QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 30000);
    QVERIFY(!window.runPane()->isRunning());
    QVERIFY(window.runPane()->lastResult().has_value());
}

void TestMainWindow::everyDockFits1280x800()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Long texts: a port in use makes the Agents dock's status line an error message, and an
    // agent's request with a long command waits in the queue (which shows the Approvals dock).
    QTcpServer busy;
    QVERIFY(busy.listen(QHostAddress::LocalHost, 0));
    window.agentsPane()->portBox()->setValue(busy.serverPort());
    window.agentsPane()->serverAction()->trigger();
    QVERIFY(!window.agentsPane()->serverAction()->isChecked());
    ActionRequest request;
    request.sandbox = QStringLiteral("a-workspace-with-a-rather-long-name");
    request.actor = {Actor::Kind::Agent, QStringLiteral("an-agent-client-with-a-long-name/1.2.3")};
    request.command = QStringLiteral("python3 -c 'print(1)' ").repeated(30) +
                      QStringLiteral("\nls -l /tmp\necho done\n");
    window.approvalQueue()->enqueue(request, [](const GateDecision&) {});

    // Every dock the View menu opens, in every combination (the Sessions dock stays open).
    QList<QDockWidget*> docks;
    for (const char* name : {"approvalDock", "agentsDock", "commandLogDock", "resourceDock"}) {
        auto* dock = window.findChild<QDockWidget*>(QLatin1String(name));
        QVERIFY2(dock, name);
        docks << dock;
    }
    for (int shown = 0; shown < (1 << docks.size()); ++shown) {
        for (int i = 0; i < docks.size(); ++i)
            docks[i]->setVisible(shown & (1 << i));
        QTest::qWait(50); // layouts settle
        QStringList open;
        for (QDockWidget* dock : docks) {
            if (dock->isVisible())
                open << dock->objectName();
        }
        const QString which = open.join(QLatin1Char('+'));
        const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
        QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 800,
                 qPrintable(QStringLiteral("%1: minimum %2x%3")
                                .arg(which)
                                .arg(minimum.width())
                                .arg(minimum.height())));
        QVERIFY2(window.width() <= 1280 && window.height() <= 800,
                 qPrintable(QStringLiteral("%1: window %2x%3")
                                .arg(which)
                                .arg(window.width())
                                .arg(window.height())));
    }
    QVERIFY(std::all_of(docks.cbegin(), docks.cend(),
                        [](QDockWidget* dock) { return dock->isVisible(); }));
    window.resize(1280, 800); // the whole screen
    QTest::qWait(100);
    QCOMPARE(window.size(), QSize(1280, 800));
    if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QVERIFY(window.grab().save(dir + QStringLiteral("/mainwindow-docks.png")));
        docks[2]->raise(); // the Command Log tab over Resources
        QTest::qWait(50);
        QVERIFY(window.grab().save(dir + QStringLiteral("/mainwindow-docks-log.png")));
    }
}

void TestMainWindow::sessionsGetTheirWidthBackWhenDocksClose()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* sessions = window.findChild<QDockWidget*>(QStringLiteral("sessionDock"));
    QVERIFY(sessions);
    const int width = sessions->width();
    QCOMPARE(width, 360);
    // The Approvals and Agents docks beside the panes leave the window too little room: the
    // Sessions dock gives some of its width away while they are open.
    auto* approvals = window.findChild<QDockWidget*>(QStringLiteral("approvalDock"));
    auto* agents = window.findChild<QDockWidget*>(QStringLiteral("agentsDock"));
    approvals->show();
    agents->show();
    QTRY_VERIFY(sessions->width() < width);
    approvals->hide();
    agents->hide();
    QTRY_COMPARE(sessions->width(), width);
}

void TestMainWindow::headersAreWholeAtTheMinimumSize()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ActionRequest request; // shows the Approvals dock
    request.sandbox = QStringLiteral("a-workspace-with-a-rather-long-name");
    request.actor = {Actor::Kind::Agent, QStringLiteral("an-agent-client-with-a-long-name/1.2.3")};
    request.command = QStringLiteral("ls -l /tmp");
    window.approvalQueue()->enqueue(request, [](const GateDecision&) {});
    QDockWidget* approvals = dock(window, "approvalDock");
    QDockWidget* agents = dock(window, "agentsDock");
    QVERIFY(approvals->isVisible());
    agents->show();
    QHeaderView* approvalHeader = approvals->findChild<QTreeWidget*>()->header();
    QHeaderView* agentsHeader = agents->findChild<QTableWidget*>()->horizontalHeader();

    // The columns a narrow dock shows, then every column (the headers' context menus).
    for (const bool everyColumn : {false, true}) {
        if (everyColumn) {
            for (QHeaderView* header : {approvalHeader, agentsHeader}) {
                for (QAction* column : header->actions()) {
                    if (!column->isChecked())
                        column->trigger();
                }
            }
        }
        window.resize(1, 1); // the window's minimum size
        window.resizeDocks({approvals, agents}, {1, 1}, Qt::Horizontal);
        QTRY_COMPARE(window.size(), window.minimumSize());
        QTRY_VERIFY2(cutHeaders(approvalHeader).isEmpty(),
                     qPrintable(cutHeaders(approvalHeader).join(QStringLiteral(", "))));
        QTRY_VERIFY2(cutHeaders(agentsHeader).isEmpty(),
                     qPrintable(cutHeaders(agentsHeader).join(QStringLiteral(", "))));
    }
    QCOMPARE(approvalHeader->count() - approvalHeader->hiddenSectionCount(), 5);
    QCOMPARE(agentsHeader->count() - agentsHeader->hiddenSectionCount(), 5);
    QVERIFY2(window.minimumSize().width() <= 1280 && window.minimumSize().height() <= 800,
             qPrintable(QStringLiteral("%1x%2")
                            .arg(window.minimumSize().width())
                            .arg(window.minimumSize().height())));
}

void TestMainWindow::layoutIsRestoredByTheNextWindow()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    QList<int> editorAndOutput;
    int agentsWidth = 0;
    {
        MainWindow window(&workbench);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(1210, 780);
        dock(window, "commandLogDock")->show();
        QDockWidget* agents = dock(window, "agentsDock");
        agents->show();
        // A width that fits beside the Sessions dock's 360 px in this window.
        window.resizeDocks({agents}, {250}, Qt::Horizontal);
        QTRY_VERIFY2(std::abs(agents->width() - 250) <= 8,
                     qPrintable(QString::number(agents->width())));
        auto* split = window.findChild<QSplitter*>(QStringLiteral("runSplitter"));
        const int total = split->sizes().value(0) + split->sizes().value(1);
        split->setSizes({total / 5, total - total / 5});
        editorAndOutput = split->sizes();
        QCoreApplication::sendPostedEvents(); // the layouts settle: what the window closes with
        agentsWidth = agents->width();
        QVERIFY(window.close());
    }
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1210, 780));
    QVERIFY(dock(window, "commandLogDock")->isVisible());
    QVERIFY(dock(window, "agentsDock")->isVisible());
    QVERIFY(!dock(window, "resourceDock")->isVisible());
    QVERIFY(!dock(window, "approvalDock")->isVisible());
    QTRY_COMPARE(dock(window, "agentsDock")->width(), agentsWidth);
    QTRY_COMPARE(window.findChild<QSplitter*>(QStringLiteral("runSplitter"))->sizes(),
                 editorAndOutput);
}

void TestMainWindow::runImageAndLimitsAreRestored()
{
    HypervisorConnection connection(QStringLiteral("test:///default"));
    Workbench workbench(&connection);
    {
        MainWindow window(&workbench);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        RunPane* pane = window.runPane();
        pane->setLanguage(Language::Shell);
        pane->setImage(QStringLiteral("python-data"));
        pane->setTimeout(std::chrono::seconds(30));
        RunLimitsEditor* limits = pane->limitsEditor();
        limits->findChild<QSpinBox*>(QStringLiteral("vcpusBox"))->setValue(1);
        limits->findChild<QSpinBox*>(QStringLiteral("memoryBox"))->setValue(768);
        limits->findChild<QSpinBox*>(QStringLiteral("diskBox"))->setValue(6);
        limits->findChild<QSpinBox*>(QStringLiteral("cpuShareBox"))->setValue(50);
        limits->findChild<QSpinBox*>(QStringLiteral("lifetimeBox"))->setValue(120);
        limits->findChild<QSpinBox*>(QStringLiteral("outputCapBox"))->setValue(2);
        auto* network = limits->findChild<QComboBox*>(QStringLiteral("networkBox"));
        network->setCurrentIndex(network->findData(QStringLiteral("allowlist")));
        QVERIFY(window.close());
    }
    MainWindow window(&workbench);
    const RunOptions options = window.runPane()->runOptions();
    QCOMPARE(options.language, Language::Shell);
    QCOMPARE(window.runPane()->script(), QStringLiteral("echo \"Hello from the sandbox\"\n"));
    QCOMPARE(options.sandbox.recipe, QStringLiteral("python-data"));
    QCOMPARE(options.timeout, std::chrono::seconds(30));
    QCOMPARE(options.sandbox.vcpus, 1);
    QCOMPARE(options.sandbox.memoryMiB, 768);
    QCOMPARE(options.sandbox.diskGiB, 6);
    QCOMPARE(options.sandbox.cpuSharePercent, 50);
    QCOMPARE(options.lifetime, std::chrono::seconds(120));
    QCOMPARE(options.outputCapBytes, qint64(2) << 20);
    QVERIFY(options.egressProxy);
}

void TestMainWindow::newWorkspaceStartsNowAndRemembersItsChoices()
{
    {
        NewWorkspaceDialog dialog;
        auto* startNow = dialog.findChild<QCheckBox*>(QStringLiteral("startNowBox"));
        QVERIFY(startNow);
        QCOMPARE(startNow->text(), QStringLiteral("&Start it now"));
        QVERIFY(startNow->isChecked());
        QVERIFY(dialog.startNow());
        QCOMPARE(dialog.settings().memoryMiB, WorkspaceSettings{}.memoryMiB);
        dialog.findChild<QLineEdit*>(QStringLiteral("nameEdit"))
            ->setText(QStringLiteral("agent-1"));
        dialog.findChild<QComboBox*>(QStringLiteral("imageBox"))
            ->setCurrentIndex(dialog.findChild<QComboBox*>(QStringLiteral("imageBox"))
                                  ->findData(QStringLiteral("python-data")));
        dialog.findChild<QSpinBox*>(QStringLiteral("vcpusBox"))->setValue(2);
        dialog.findChild<QSpinBox*>(QStringLiteral("memoryBox"))->setValue(1024);
        dialog.findChild<QSpinBox*>(QStringLiteral("diskBox"))->setValue(8);
        dialog.findChild<QSpinBox*>(QStringLiteral("cpuShareBox"))->setValue(150);
        auto* network = dialog.findChild<QComboBox*>(QStringLiteral("networkBox"));
        network->setCurrentIndex(network->findData(QStringLiteral("nat")));
        startNow->setChecked(false);
        dialog.accept();
    }
    // The next dialog offers the same image and limits, a new name, and starts now again.
    NewWorkspaceDialog dialog;
    QCOMPARE(dialog.name(), QString());
    QVERIFY(dialog.startNow());
    const WorkspaceSettings settings = dialog.settings();
    QCOMPARE(settings.recipe, QStringLiteral("python-data"));
    QCOMPARE(settings.vcpus, 2);
    QCOMPARE(settings.memoryMiB, 1024);
    QCOMPARE(settings.diskGiB, 8);
    QCOMPARE(settings.cpuSharePercent, 150);
    QCOMPARE(settings.network, WorkspaceNetwork::Nat);

    // A name that is taken is said at once, with the choices still there; OK waits.
    dialog.setTakenNames({QStringLiteral("agent-1")});
    auto* name = dialog.findChild<QLineEdit*>(QStringLiteral("nameEdit"));
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    name->setText(QStringLiteral("agent-1"));
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("nameProblem"))->text(),
             QStringLiteral("A workspace named 'agent-1' already exists."));
    QVERIFY(!ok->isEnabled());
    name->setText(QStringLiteral("agent-2"));
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("nameProblem"))->text(), QString());
    QVERIFY(ok->isEnabled());
}

void TestMainWindow::newWorkspaceMemoryFollowsTheImage()
{
    QSettings().remove(QStringLiteral("newWorkspace"));
    NewWorkspaceDialog dialog;
    auto* image = dialog.findChild<QComboBox*>(QStringLiteral("imageBox"));
    auto* memory = dialog.findChild<QSpinBox*>(QStringLiteral("memoryBox"));
    const auto choose = [image](const char* recipe) { image->setCurrentIndex(image->findData(QLatin1String(recipe))); };
    QCOMPARE(memory->value(), 512);
    // The browser image's default (its renderer does not start in 512 MiB), and back.
    choose("browser");
    QCOMPARE(dialog.settings().memoryMiB, 1024);
    choose("minimal");
    QCOMPARE(dialog.settings().memoryMiB, 512);
    // A memory the person chose stays whatever the image.
    memory->setValue(768);
    choose("browser");
    QCOMPARE(dialog.settings().memoryMiB, 768);
    QCOMPARE(dialog.settings().recipe, QStringLiteral("browser"));
}

// Not QTEST_MAIN: libvirt's event loop needs prepareProcess() before the application exists
// (ctest also sets QT_NO_GLIB=1, but the binary should work when started by hand too).
int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestMainWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_mainwindow.moc"
