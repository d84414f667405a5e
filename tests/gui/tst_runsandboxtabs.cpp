// The Terminal and Files tabs of the run pane on one real ephemeral run whose script sleeps:
// before the run they say that no run is running; while it runs a terminal tab is a shell in
// the run's microVM (the script's folder is its /root/run), the PTY has exactly the widget's
// rows and columns after every resize, top runs full-screen, the file tree lists /root/run and
// previews a PNG uploaded through it; when the run ends both tabs say the microVM is gone and
// the GUI stays responsive. With SBW_SCREENSHOT_DIR set, saves run-terminal-top.png,
// run-files-preview.png and run-terminal-ended.png there.
// Needs a running libvirt daemon and the guest image (packaging/guest/build-image.sh minimal).

#include "TemporarySettings.h"
#include "TestEnvironment.h"
#include "files/FilePreview.h"
#include "files/FileTreeModel.h"
#include "files/FileTreePane.h"
#include "files/WorkspaceFilesPage.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/RunGuestTab.h"
#include "run/RunPane.h"
#include "terminal/TerminalTab.h"
#include "terminal/TerminalTabs.h"
#include "terminal/TerminalWidget.h"
#include "widgets/OutputView.h"
#include "window/MainWindow.h"
#include "workbench/Workbench.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLinearGradient>
#include <QPainter>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

using namespace sbw;

namespace {

constexpr int kRunTimeoutMs = 300 * 1000;
constexpr int kGuestTimeoutMs = 60 * 1000;

/// Saves `widget` as NAME.png into $SBW_SCREENSHOT_DIR when it is set.
void screenshot(QWidget* widget, const QString& name)
{
    if (const QString dir = qEnvironmentVariable("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(widget->grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png")));
}

/// A small picture worth looking at: a gradient with a circle and a caption.
QImage samplePicture()
{
    QImage image(240, 160, QImage::Format_RGB32);
    QPainter painter(&image);
    QLinearGradient gradient(0, 0, 240, 160);
    gradient.setColorAt(0, QColor(0x1e, 0x88, 0xe5));
    gradient.setColorAt(1, QColor(0x43, 0xa0, 0x47));
    painter.fillRect(image.rect(), gradient);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(QColor(0xff, 0xc1, 0x07));
    painter.setPen(Qt::NoPen);
    painter.drawEllipse(QPoint(70, 80), 45, 45);
    painter.setPen(Qt::white);
    QFont font = painter.font();
    font.setPixelSize(22);
    font.setBold(true);
    painter.setFont(font);
    painter.drawText(QRect(120, 50, 115, 60), Qt::AlignCenter, QStringLiteral("sandbox"));
    return image;
}

} // namespace

class TestRunSandboxTabs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tabsSayNoRunIsRunning();
    void terminalIsAShellInTheRunningRun();
    void ptySizeFollowsTheWidget();
    void topRunsFullScreen();
    void filesTabListsTheRunFolder();
    void uploadedImageOpensInThePreview();
    void tabsSayTheMicroVmIsGoneWhenTheRunEnds();

private:
    TerminalTab* terminal() const;
    /// Types `line` and Return into the terminal.
    void type(const QString& line) const;
    /// Resizes the window and checks that `stty size` in the shell prints the widget's grid.
    void checkSttySizeAt(QSize windowSize);

    std::unique_ptr<HypervisorConnection> m_connection;
    std::unique_ptr<Workbench> m_workbench; ///< outlives the window, as in the program
    std::unique_ptr<MainWindow> m_window;
    RunPane* m_pane = nullptr;
    QTemporaryDir m_host;
    test::TemporarySettings m_settings; ///< the windows' layouts and choices, never the person's
};

void TestRunSandboxTabs::initTestCase()
{
    QVERIFY(m_host.isValid());
    m_connection = std::make_unique<HypervisorConnection>(test::guestUri());
    m_workbench = std::make_unique<Workbench>(m_connection.get());
    m_window = std::make_unique<MainWindow>(m_workbench.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_pane = m_window->runPane();
}

void TestRunSandboxTabs::cleanupTestCase()
{
    if (m_pane && m_pane->isRunning()) {
        m_pane->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!m_pane->isRunning(), kRunTimeoutMs);
    }
    m_window.reset();
    m_workbench.reset();
}

TerminalTab* TestRunSandboxTabs::terminal() const
{
    auto* tabs = qobject_cast<TerminalTabs*>(m_pane->terminalPage()->content());
    return tabs && tabs->count() > 0 ? tabs->tab(0) : nullptr;
}

void TestRunSandboxTabs::type(const QString& line) const
{
    QTest::keyClicks(terminal()->terminal(), line);
    QTest::keyClick(terminal()->terminal(), Qt::Key_Return);
}

void TestRunSandboxTabs::tabsSayNoRunIsRunning()
{
    QCOMPARE(m_pane->runTabs()->count(), 4);
    QCOMPARE(m_pane->runTabs()->tabText(1), QStringLiteral("Terminal"));
    QCOMPARE(m_pane->runTabs()->tabText(2), QStringLiteral("Files"));
    QCOMPARE(m_pane->runTabs()->tabText(3), QStringLiteral("History"));
    m_pane->runTabs()->setCurrentWidget(m_pane->terminalPage());
    QVERIFY(!m_pane->terminalPage()->content());
    QCOMPARE(m_pane->terminalPage()->noticeText(),
             QStringLiteral("No run is running. While a run's script runs, its terminals are here."));
    QCOMPARE(m_pane->filesPage()->noticeText(),
             QStringLiteral("No run is running. While a run's script runs, its files are here."));
}

void TestRunSandboxTabs::terminalIsAShellInTheRunningRun()
{
    m_pane->setLanguage(Language::Python);
    m_pane->setTimeout(std::chrono::seconds(0));
    m_pane->setScript(QStringLiteral("import time\nprint('started', flush=True)\ntime.sleep(900)\n"));
    QVERIFY(m_pane->run());
    QVERIFY(m_pane->terminalPage()->noticeText().startsWith(QStringLiteral("The run's microVM is starting")));
    // The Terminal tab is shown: its first shell opens as soon as the guest is ready.
    QTRY_VERIFY_WITH_TIMEOUT(terminal() || !m_pane->isRunning(), kRunTimeoutMs);
    QVERIFY2(m_pane->isRunning(), qPrintable(m_pane->statusText()));
    QCOMPARE(m_pane->terminalPage()->noticeText(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(m_pane->outputView()->shownText() == QStringLiteral("started\n"),
                             kGuestTimeoutMs);
    type(QStringLiteral("cd /root/run && ls && echo term-$((6*7))"));
    QTRY_VERIFY_WITH_TIMEOUT(terminal()->terminal()->screenText().contains(QStringLiteral("\nterm-42")),
                             kGuestTimeoutMs);
    // The run's folder holds the script and the empty out/ folder for its artifacts.
    QVERIFY2(terminal()->terminal()->screenText().contains(QStringLiteral("\nmain.py  out\n")),
             qPrintable(terminal()->terminal()->screenText()));
}

void TestRunSandboxTabs::checkSttySizeAt(QSize windowSize)
{
    TerminalWidget* widget = terminal()->terminal();
    m_window->resize(windowSize);
    QTRY_COMPARE(m_window->size(), windowSize);
    QCoreApplication::processEvents(); // layouts settle, the widget's grid follows
    const int rows = widget->rows();
    const int cols = widget->cols();
    QCOMPARE(cols, widget->viewport()->width() / widget->cellSize().width());
    QCOMPARE(rows, widget->viewport()->height() / widget->cellSize().height());
    type(QStringLiteral("clear; echo \"pty=$(stty size)\""));
    const QString expected = QStringLiteral("pty=%1 %2").arg(rows).arg(cols);
    QTRY_VERIFY2_WITH_TIMEOUT(widget->screenText().contains(expected),
                              qPrintable(expected + QStringLiteral(" not on the screen:\n")
                                         + widget->screenText()),
                              kGuestTimeoutMs);
}

void TestRunSandboxTabs::ptySizeFollowsTheWidget()
{
    const QSize original = m_window->size();
    checkSttySizeAt(QSize(900, 560));
    checkSttySizeAt(QSize(1400, 1050));
    checkSttySizeAt(original);
}

void TestRunSandboxTabs::topRunsFullScreen()
{
    TerminalWidget* widget = terminal()->terminal();
    type(QStringLiteral("top -d 1"));
    QTRY_VERIFY_WITH_TIMEOUT(widget->screenText().contains(QStringLiteral("load average")), kGuestTimeoutMs);
    // top draws down to the last row of the widget (the guest has more tasks than rows).
    QTRY_VERIFY_WITH_TIMEOUT(!widget->screenText().split(QLatin1Char('\n')).value(widget->rows() - 1).trimmed().isEmpty(),
                             kGuestTimeoutMs);
    QTest::qWait(1500); // a second frame, with CPU figures
    screenshot(m_window.get(), QStringLiteral("run-terminal-top"));
    type(QStringLiteral("q"));
    QTRY_VERIFY_WITH_TIMEOUT(!widget->screenText().contains(QStringLiteral("load average")), kGuestTimeoutMs);
}

void TestRunSandboxTabs::filesTabListsTheRunFolder()
{
    m_pane->runTabs()->setCurrentWidget(m_pane->filesPage());
    QTRY_VERIFY_WITH_TIMEOUT(m_pane->filesPage()->content(), 1000);
    auto* page = qobject_cast<WorkspaceFilesPage*>(m_pane->filesPage()->content());
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(page->tree(), kGuestTimeoutMs);
    QCOMPARE(page->tree()->model()->rootPath(), QByteArray("/root/run"));
    QTRY_VERIFY_WITH_TIMEOUT(page->tree()->model()->indexForPath("/root/run/main.py").isValid(),
                             kGuestTimeoutMs);
}

void TestRunSandboxTabs::uploadedImageOpensInThePreview()
{
    FileTreePane* tree = qobject_cast<WorkspaceFilesPage*>(m_pane->filesPage()->content())->tree();
    const QString source = m_host.filePath(QStringLiteral("picture.png"));
    QVERIFY(samplePicture().save(source));
    QSignalSpy finished(tree, &FileTreePane::transferFinished);
    tree->uploadFiles({source}, "/root/run");
    QVERIFY(finished.wait(kGuestTimeoutMs));
    QVERIFY(finished.first().first().value<Expected<void>>().ok());
    QTRY_VERIFY_WITH_TIMEOUT(tree->model()->indexForPath("/root/run/picture.png").isValid(),
                             kGuestTimeoutMs);

    QSignalSpy opened(tree, &FileTreePane::previewOpened);
    tree->view()->setCurrentIndex(tree->model()->indexForPath("/root/run/picture.png"));
    tree->openSelected();
    QVERIFY(opened.wait(kGuestTimeoutMs));
    auto* preview = opened.first().first().value<FilePreview*>();
    QCOMPARE(preview->kind(), FilePreview::Kind::Image);
    QVERIFY(preview->isVisible());
    QVERIFY(preview->window() == m_window.get()); // beside the tree, not a window of its own
    QCOMPARE(preview->findChild<QLabel*>(QStringLiteral("imagePreview"))->pixmap().toImage()
                 .convertToFormat(QImage::Format_RGB32),
             samplePicture());
    screenshot(m_window.get(), QStringLiteral("run-files-preview"));
}

void TestRunSandboxTabs::tabsSayTheMicroVmIsGoneWhenTheRunEnds()
{
    QElapsedTimer sinceTick;
    qint64 longestStallMs = 0;
    QTimer ticker;
    ticker.setInterval(20);
    connect(&ticker, &QTimer::timeout, this,
            [&] { longestStallMs = qMax(longestStallMs, sinceTick.restart()); });
    sinceTick.start();
    ticker.start();
    m_pane->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!m_pane->isRunning(), kRunTimeoutMs);
    ticker.stop();
    qInfo("longest GUI stall while the run ended: %lld ms", longestStallMs);
    QVERIFY2(longestStallMs < 1000, qPrintable(QString::number(longestStallMs)));
    QVERIFY(m_pane->lastResult()->cancelled);

    const QString gone = QStringLiteral("The run ended and its microVM is gone: these %1 are no longer live.");
    QCOMPARE(m_pane->terminalPage()->noticeText(), gone.arg(QStringLiteral("terminals")));
    QCOMPARE(m_pane->filesPage()->noticeText(), gone.arg(QStringLiteral("files")));
    QTRY_VERIFY_WITH_TIMEOUT(terminal()->hasEnded(), 10000);
    QVERIFY2(terminal()->terminal()->screenText().contains(
                 QStringLiteral("[shell ended: the guest session was closed]")),
             qPrintable(terminal()->terminal()->screenText()));

    m_pane->runTabs()->setCurrentWidget(m_pane->terminalPage());
    screenshot(m_window.get(), QStringLiteral("run-terminal-ended"));
    auto* tabs = qobject_cast<TerminalTabs*>(m_pane->terminalPage()->content());
    QSignalSpy failed(tabs, &TerminalTabs::openFailed);
    tabs->openTerminal();
    QVERIFY(failed.wait(10000));
    QCOMPARE(failed.first().first().toString(), QStringLiteral("the run's microVM is gone"));

    // The ended file tree stays for reading but its buttons act on no guest: it is disabled;
    // the terminals stay enabled, so their scrollback can still be selected and copied.
    QVERIFY(!m_pane->filesPage()->content()->isEnabled());
    QVERIFY(tabs->isEnabled());
    FileTreePane* tree = qobject_cast<WorkspaceFilesPage*>(m_pane->filesPage()->content())->tree();
    QSignalSpy loadFailed(tree->model(), &FileTreeModel::loadFailed);
    tree->model()->refresh();
    QVERIFY(loadFailed.wait(10000));
    QVERIFY2(loadFailed.first().at(1).toString().contains(QStringLiteral("closed")),
             qPrintable(loadFailed.first().at(1).toString()));
    QVERIFY(!test::runDomains(test::guestUri()).contains(m_pane->lastResult()->domainName));
}

// Not QTEST_MAIN: libvirt's event loop needs prepareProcess() before the application exists.
int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestRunSandboxTabs test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_runsandboxtabs.moc"
