// The real thing through the GUI: type a script, click Run, a microVM boots, the script runs,
// its output and exit status appear, and no domain or overlay is left behind. Needs a running
// libvirt daemon and the guest image (packaging/guest/build-image.sh minimal).

#include "ConnectionUri.h"
#include "DataPaths.h"
#include "HypervisorConnection.h"
#include "LibvirtEventLoop.h"
#include "MainWindow.h"
#include "OutputView.h"
#include "RunPane.h"
#include "TestEnvironment.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
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
    void closeDuringRunDestroysVmThenCloses();

private:
    /// The run's domain and its overlay volume are gone. Only this run's names are checked:
    /// other processes may be running sandboxes on the same daemon.
    void verifyRunRemoved(const RunResult& result);

    QString m_uri;
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
    MainWindow window(&connection);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunPane* pane = window.runPane();

    QPlainTextEdit* editor = pane->editor();
    editor->clear();
    editor->setFocus();
    QTest::keyClicks(editor, QStringLiteral("print(6*7)"));
    QCOMPARE(pane->script(), QStringLiteral("print(6*7)"));
    QCOMPARE(pane->language(), Language::Python);

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
    QCOMPARE(pane->outputView()->shownText(), QStringLiteral("42\n"));
    QVERIFY(pane->lastResult().has_value());
    QCOMPARE(pane->lastResult()->stdoutData, QByteArray("42\n"));
    QCOMPARE(pane->lastResult()->stderrData, QByteArray());
    QVERIFY(!pane->isRunning());
    QVERIFY(pane->runButton()->isEnabled());
    verifyRunRemoved(*pane->lastResult());
}

void TestRunPaneGuest::closeDuringRunDestroysVmThenCloses()
{
    HypervisorConnection connection(m_uri);
    MainWindow window(&connection);
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
