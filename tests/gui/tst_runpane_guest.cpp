// The real thing through the GUI: type a script, set the run's limits, click Run, a microVM
// boots with them, the script runs, its output and exit status appear, and no domain or overlay
// is left behind. Needs a running
// libvirt daemon and the guest image (packaging/guest/build-image.sh minimal).

#include "NewImageBuild.h"
#include "TemporarySettings.h"
#include "TestEnvironment.h"
#include "base/DataPaths.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/LibvirtEventLoop.h"
#include "run/ArtifactsView.h"
#include "run/RunController.h"
#include "run/RunHistory.h"
#include "run/RunPane.h"
#include "widgets/OutputView.h"
#include "window/MainWindow.h"
#include "workbench/Workbench.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace sbw;

namespace {

constexpr int kRunTimeoutMs = 300 * 1000;

} // namespace

class TestRunPaneGuest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void typedScriptRunsInMicroVm();
    void firstRunOfANewBuildShowsItsUpload();
    void closeDuringRunDestroysVmThenCloses();
    void inputFileInChartAndTableOut();
    void csvExampleDrawsChartOnPythonData();

private:
    /// The run's domain and its overlay volume are gone. Only this run's names are checked:
    /// other processes may be running sandboxes on the same daemon.
    void verifyRunRemoved(const RunResult& result);

    QString m_uri;
    test::TemporarySettings m_settings; ///< the windows' layouts and choices, never the person's
};

void TestRunPaneGuest::initTestCase()
{
    m_uri = defaultConnectionUri();
    const QString manifest = paths::imagesDir() + QStringLiteral("/minimal/manifest.json");
    QVERIFY2(QFileInfo::exists(manifest),
             qPrintable(QStringLiteral("no guest image at %1: build it with "
                                       "packaging/guest/build-image.sh minimal")
                            .arg(manifest)));
    HypervisorConnection probe(m_uri);
    const auto opened = probe.ensureOpen();
    QVERIFY2(opened.ok(), qPrintable(opened.ok() ? QString() : opened.error().message));
}

void TestRunPaneGuest::verifyRunRemoved(const RunResult& result)
{
    QVERIFY(result.domainName.startsWith(QStringLiteral("sbw-run-")));
    QVERIFY2(!test::runDomains(m_uri).contains(result.domainName), qPrintable(result.domainName));
    for (const QString& volume : test::runOverlays(m_uri))
        QVERIFY2(!volume.startsWith(result.domainName), qPrintable(volume));
}

void TestRunPaneGuest::typedScriptRunsInMicroVm()
{
    HypervisorConnection connection(m_uri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();

    QPlainTextEdit* editor = pane->editor();
    editor->clear();
    editor->setFocus();
    const QString script = QStringLiteral(
        "import os, shutil; m = int(open('/proc/meminfo').read().split()[1]); "
        "print(6*7, os.cpu_count(), shutil.disk_usage('/').total > 4.5 * 2**30, 300000 < m <= 393216)");
    QTest::keyClicks(editor, script);
    QCOMPARE(pane->script(), script);
    QCOMPARE(pane->language(), Language::Python);
    // Every limit of `sbw run` is set in the pane and reaches the run: vCPUs, memory and disk
    // are seen inside the guest below.
    const auto setBox = [pane](const char* name, int value) {
        auto* box = pane->findChild<QSpinBox*>(QLatin1String(name));
        QVERIFY2(box, name);
        box->setValue(value);
    };
    setBox("vcpusBox", 2);
    setBox("memoryBox", 384);
    setBox("diskBox", 5);
    setBox("cpuShareBox", 150);
    setBox("lifetimeBox", 280);
    setBox("outputCapBox", 8);
    setBox("timeoutBox", 200);
    const RunOptions options = pane->runOptions();
    QCOMPARE(options.sandbox.vcpus, 2);
    QCOMPARE(options.sandbox.memoryMiB, 384);
    QCOMPARE(options.sandbox.diskGiB, 5);
    QCOMPARE(options.sandbox.cpuSharePercent, 150);
    QCOMPARE(options.lifetime, std::chrono::seconds(280));
    QCOMPARE(options.outputCapBytes, qint64(8) << 20);
    QCOMPARE(options.timeout, std::chrono::seconds(200));

    QTest::mouseClick(pane->runButton(), Qt::LeftButton);
    QVERIFY(pane->isRunning());
    // The outcome shows as soon as the script ends, while the microVM is still being destroyed.
    QTRY_VERIFY_WITH_TIMEOUT(pane->statusText().contains(QStringLiteral("exit status")) ||
                                 pane->statusText().startsWith(QStringLiteral("Failed")),
                             kRunTimeoutMs);
    qInfo("status: %s", qPrintable(pane->statusText()));
    QTRY_VERIFY_WITH_TIMEOUT(!pane->isRunning(), kRunTimeoutMs);

    QVERIFY2(pane->statusText().contains(QStringLiteral("exit status 0")),
             qPrintable(pane->statusText()));
    QCOMPARE(pane->outputView()->shownText(), QStringLiteral("42 2 True True\n"));
    QVERIFY(pane->lastResult().has_value());
    QCOMPARE(pane->lastResult()->stdoutData, QByteArray("42 2 True True\n"));
    QCOMPARE(pane->lastResult()->stderrData, QByteArray());
    QVERIFY(!pane->isRunning());
    QVERIFY(pane->runButton()->isEnabled());
    verifyRunRemoved(*pane->lastResult());
}

// A build of the image the host's pool has not seen: the run uploads it first, and the status
// line says how much of it is sent (runpane-staging.png shows it half-way).
void TestRunPaneGuest::firstRunOfANewBuildShowsItsUpload()
{
    test::NewImageBuild build({m_uri});
    QVERIFY2(build.image().ok(), qPrintable(build.image() ? QString() : build.image().error().message));
    // No pre-booted microVM: it would stage the build before the run does.
    QSettings().setValue(QStringLiteral("run/readyMicroVms"), 0);
    HypervisorConnection connection(m_uri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();
    pane->setLanguage(Language::Shell);
    pane->setScript(QStringLiteral("echo staged\n"));
    // The status line as each report of the upload has reached it (the pane's own handler of
    // the signal was connected first).
    QStringList shown;
    auto* controller = pane->findChild<RunController*>();
    QVERIFY(controller);
    connect(controller, &RunController::staging, this, [&] {
        shown << pane->statusText();
#ifdef SBW_SCREENSHOT_DIR
        if (shown.size() == 5)
            window.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/runpane-staging.png"));
#endif
    });
    QTest::mouseClick(pane->runButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!pane->isRunning(), kRunTimeoutMs);
    QVERIFY2(pane->statusText().contains(QStringLiteral("exit status 0")), qPrintable(pane->statusText()));
    QCOMPARE(pane->outputView()->shownText(), QStringLiteral("staged\n"));

    const QString prefix = QStringLiteral("staging the image into the host's storage pool: ");
    const QString mib = QString::number(build.totalBytes() >> 20);
    QVERIFY2(shown.size() >= 2 && shown.size() <= 11, qPrintable(shown.join(QLatin1Char('\n'))));
    QVERIFY2(shown.first().startsWith(prefix + QStringLiteral("0 of ") + mib + QStringLiteral(" MiB")),
             qPrintable(shown.first()));
    QVERIFY2(shown.last().startsWith(prefix + mib + QStringLiteral(" of ") + mib + QStringLiteral(" MiB")),
             qPrintable(shown.last()));
    verifyRunRemoved(*pane->lastResult());
}

void TestRunPaneGuest::closeDuringRunDestroysVmThenCloses()
{
    HypervisorConnection connection(m_uri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();
    pane->setScript(QStringLiteral("import time\nprint('started', flush=True)\ntime.sleep(600)\n"));

    QTest::mouseClick(pane->runButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(pane->outputView()->shownText() == QStringLiteral("started\n") ||
                                 !pane->isRunning(),
                             kRunTimeoutMs);
    QVERIFY2(pane->isRunning(), qPrintable(pane->statusText()));

    // Closing cancels the run; the window stays, responsive, until the VM is gone. Measure the
    // longest stall of the GUI thread's event loop meanwhile.
    QElapsedTimer sinceTick;
    qint64 longestStallMs = 0;
    QTimer ticker;
    ticker.setInterval(20);
    connect(&ticker, &QTimer::timeout, this,
            [&] { longestStallMs = qMax(longestStallMs, sinceTick.restart()); });
    QVERIFY(!window.close());
    sinceTick.start();
    ticker.start();
    QVERIFY(window.isClosePending());
    QVERIFY(window.statusBar()->currentMessage().startsWith(QStringLiteral("Cleaning up…")));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 120 * 1000);
    ticker.stop();
    qInfo("longest GUI stall while cleaning up: %lld ms", longestStallMs);
    QVERIFY2(longestStallMs < 1000, qPrintable(QString::number(longestStallMs)));
    QVERIFY(pane->lastResult().has_value());
    QVERIFY(pane->lastResult()->cancelled);
    verifyRunRemoved(*pane->lastResult());
}

// A CSV added as an input file goes in; the script writes a PNG chart (zlib + struct, no
// matplotlib), a CSV summary and a text file to out/; under the output the chart shows as a
// picture, the summary as a table, the text file with its size; the History tab reopens them.
void TestRunPaneGuest::inputFileInChartAndTableOut()
{
    QTemporaryDir dir;
    const QString csvPath = dir.filePath(QStringLiteral("data.csv"));
    {
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("name,value\nalpha,1\nbeta,2\n\"gamma, delta\",39\n");
    }
    HypervisorConnection connection(m_uri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.resize(1100, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();
    QCOMPARE(pane->addInputFiles({csvPath, csvPath, dir.path()}), 1);
    QCOMPARE(pane->inputFiles(), QStringList{csvPath});
    pane->setScript(QStringLiteral(
        "import csv, struct, zlib\n"
        "rows = list(csv.DictReader(open('data.csv', newline='')))\n"
        "def chunk(kind, data):\n"
        "    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))\n"
        "w, h = 40, 20\n"
        "line = b'\\x00' + b'\\xff\\x00\\x00' * (w // 2) + b'\\x00\\x00\\xff' * (w // 2)\n"
        "png = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))\n"
        "       + chunk(b'IDAT', zlib.compress(line * h)) + chunk(b'IEND', b''))\n"
        "open('out/chart.png', 'wb').write(png)\n"
        "with open('out/summary.csv', 'w', newline='') as f:\n"
        "    out = csv.writer(f)\n"
        "    out.writerow(['name', 'doubled'])\n"
        "    for r in rows:\n"
        "        out.writerow([r['name'], int(r['value']) * 2])\n"
        "open('out/notes.txt', 'w').write('done\\n')\n"
        "print(len(rows), 'rows')\n"));

    QTest::mouseClick(pane->runButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!pane->isRunning(), kRunTimeoutMs);
    QVERIFY2(pane->statusText().contains(QStringLiteral("exit status 0")), qPrintable(pane->statusText()));
    QCOMPARE(pane->outputView()->shownText(), QStringLiteral("3 rows\n"));
    QCOMPARE(pane->lastResult()->artifacts.size(), 3);

    ArtifactsView* view = pane->artifactsView();
    QVERIFY(view->isVisible());
    const auto images = view->findChildren<QLabel*>(QStringLiteral("artifactImage"));
    QCOMPARE(images.size(), 1);
    const QImage picture = images.first()->pixmap().toImage();
    QCOMPARE(picture.size(), QSize(40, 20));
    QCOMPARE(picture.pixelColor(0, 0), QColor(255, 0, 0));
    QCOMPARE(picture.pixelColor(39, 19), QColor(0, 0, 255));
    // A widget added to a shown layout is shown from the event loop (a queued call).
    QTRY_VERIFY(images.first()->isVisible());

    const auto tables = view->findChildren<QTableView*>(QStringLiteral("artifactTable"));
    QCOMPARE(tables.size(), 1);
    const QAbstractItemModel* model = tables.first()->model();
    QCOMPARE(model->columnCount(), 2);
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->headerData(0, Qt::Horizontal).toString(), QStringLiteral("name"));
    QCOMPARE(model->headerData(1, Qt::Horizontal).toString(), QStringLiteral("doubled"));
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("alpha"));
    QCOMPARE(model->index(0, 1).data().toString(), QStringLiteral("2"));
    QCOMPARE(model->index(2, 0).data().toString(), QStringLiteral("gamma, delta"));
    QCOMPARE(model->index(2, 1).data().toString(), QStringLiteral("78"));

    QStringList names;
    for (QWidget* block : view->findChildren<QWidget*>(QStringLiteral("artifact")))
        names << block->property("artifactName").toString();
    QCOMPARE(names, (QStringList{QStringLiteral("chart.png"), QStringLiteral("notes.txt"), QStringLiteral("summary.csv")}));
    QCOMPARE(view->findChildren<QWidget*>(QStringLiteral("saveArtifact")).size(), 3);
#ifdef SBW_SCREENSHOT_DIR
    window.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/runpane-artifacts.png"));
#endif

    // The History tab lists the run and reopens its files from the data folder. (Other
    // workbench processes may log runs in the same command log meanwhile.)
    pane->runTabs()->setCurrentWidget(pane->history());
    RunHistory* history = pane->history();
    int index = -1;
    for (int i = 0; i < history->entries().size() && index < 0; ++i) {
        if (history->entries().at(i).domainName == pane->lastResult()->domainName)
            index = i;
    }
    QVERIFY2(index >= 0 && index < 5, qPrintable(QString::number(index)));
    // Its line says what ran: the script's first line.
    QCOMPARE(history->entries().at(index).title, QStringLiteral("import csv, struct, zlib"));
    history->select(index);
    QCOMPARE(history->artifactsView()->artifacts().size(), 3);
    QCOMPARE(history->artifactsView()->findChildren<QTableView*>(QStringLiteral("artifactTable")).size(), 1);
    verifyRunRemoved(*pane->lastResult());
}

// File ▸ Examples ▸ "CSV summary and chart": the example's script, image template (python-data)
// and data file are loaded; its pandas summary and its Matplotlib chart come back and show.
// Needs the python-data image (packaging/run-tests.sh builds it).
void TestRunPaneGuest::csvExampleDrawsChartOnPythonData()
{
    if (!QFileInfo::exists(paths::imagesDir() + QStringLiteral("/python-data/manifest.json")))
        QFAIL("no python-data image: build it with sbw image build python-data");
    HypervisorConnection connection(m_uri);
    Workbench workbench(&connection);
    MainWindow window(&workbench);
    window.resize(1200, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();

    auto* examples = window.findChild<QMenu*>(QStringLiteral("examplesMenu"));
    QVERIFY(examples);
    QAction* csvExample = nullptr;
    for (QAction* action : examples->actions()) {
        if (action->text() == QLatin1String("CSV summary and chart"))
            csvExample = action;
    }
    QVERIFY(csvExample);
    csvExample->trigger();
    QCOMPARE(pane->image(), QStringLiteral("python-data"));
    QCOMPARE(pane->language(), Language::Python);
    QVERIFY(pane->script().contains(QLatin1String("import pandas as pd")));
    QCOMPARE(pane->inputFiles().size(), 1);
    QVERIFY(pane->inputFiles().first().endsWith(QLatin1String("/csv-summary/sales.csv")));
    QCOMPARE(pane->runOptions().sandbox.recipe, QStringLiteral("python-data"));

    pane->setTimeout(std::chrono::seconds(600));
    QTest::mouseClick(pane->runButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!pane->isRunning(), 2 * kRunTimeoutMs);
    QVERIFY2(pane->statusText().contains(QStringLiteral("exit status 0")),
             qPrintable(pane->statusText() + QLatin1Char('\n') + QString::fromUtf8(pane->lastResult()->stderrData)));
    const QString output = pane->outputView()->shownText();
    QVERIFY2(output.startsWith(QStringLiteral("120 sales from 2026-01-01 to 2026-03-31\n")), qPrintable(output));
    QVERIFY2(output.contains(QStringLiteral("North      2148  2051.75  1377.0  5576.75\n")), qPrintable(output));

    ArtifactsView* view = pane->artifactsView();
    const auto images = view->findChildren<QLabel*>(QStringLiteral("artifactImage"));
    QCOMPARE(images.size(), 1);
    // plt.savefig(..., dpi=100) of a 7 × 4 inch figure.
    QCOMPARE(images.first()->pixmap().toImage().size(), QSize(700, 400));
    QFile chart(pane->lastResult()->artifactsFolder + QStringLiteral("/chart.png"));
    QVERIFY(chart.open(QIODevice::ReadOnly));
    QCOMPARE(chart.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));

    const auto tables = view->findChildren<QTableView*>(QStringLiteral("artifactTable"));
    QCOMPARE(tables.size(), 1);
    const QAbstractItemModel* model = tables.first()->model();
    QCOMPARE(model->rowCount(), 4);
    QCOMPARE(model->headerData(0, Qt::Horizontal).toString(), QStringLiteral("region"));
    QCOMPARE(model->headerData(4, Qt::Horizontal).toString(), QStringLiteral("total"));
    QCOMPARE(model->index(1, 0).data().toString(), QStringLiteral("North"));
    QCOMPARE(model->index(1, 4).data().toString(), QStringLiteral("5576.75"));
#ifdef SBW_SCREENSHOT_DIR
    window.grab().save(QStringLiteral(SBW_SCREENSHOT_DIR "/runpane-csv-example.png"));
#endif
    verifyRunRemoved(*pane->lastResult());
}

// Not QTEST_MAIN: libvirt's event loop needs prepareProcess() before the application exists
// (ctest also sets QT_NO_GLIB=1, but the binary should work when started by hand too).
int main(int argc, char* argv[])
{
    sbw::LibvirtEventLoop::prepareProcess();
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestRunPaneGuest test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_runpane_guest.moc"
