// Whole ephemeral runs: a fresh microVM per case, destroyed afterwards.

#include "EphemeralRun.h"
#include "HypervisorConnection.h"
#include "TestEnvironment.h"

#include <QTest>

#include <thread>

using namespace std::chrono_literals;

class TestEphemeralRun : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;

    sbw::RunResult run(sbw::Language language, const QByteArray& code,
                       std::chrono::seconds timeout = 60s, const std::atomic_bool* cancel = nullptr,
                       const QString& recipe = QStringLiteral("minimal"))
    {
        sbw::RunOptions options;
        options.language = language;
        options.code = code;
        options.timeout = timeout;
        options.sandbox.recipe = recipe;
        return sbw::runEphemeral(*m_connection, options, {}, cancel);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
    }

    // After every case nothing of the run is left: no domain, no overlay.
    void cleanup()
    {
        QCOMPARE(sbw::test::runDomains(m_connection->uri()), QStringList());
        QCOMPARE(sbw::test::runOverlays(m_connection->uri()), QStringList());
    }

    void pythonOutputIsExact()
    {
        const sbw::RunResult result = run(sbw::Language::Python, "print(6*7)\n");
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.stdoutData, QByteArray("42\n"));
        QCOMPARE(result.stderrData, QByteArray());
        QCOMPARE(result.exitStatus, std::optional<int>(0));
        QVERIFY(result.bootMs > 0);
        QVERIFY(result.totalMs >= result.bootMs + result.wallMs);
        QVERIFY(result.domainName.startsWith(QLatin1String("sbw-run-")));
    }

    void pythonTracebackGoesToStderr()
    {
        const sbw::RunResult result = run(sbw::Language::Python, "print('before')\nraise SystemExit('boom')\n");
        QCOMPARE(result.stdoutData, QByteArray("before\n"));
        QCOMPARE(result.stderrData, QByteArray("boom\n"));
        QCOMPARE(result.exitStatus, std::optional<int>(1));
    }

    void shellExitStatus()
    {
        const sbw::RunResult result = run(sbw::Language::Shell, "echo hi\nexit 3\n");
        QCOMPARE(result.stdoutData, QByteArray("hi\n"));
        QCOMPARE(result.exitStatus, std::optional<int>(3));
        QCOMPARE(result.cliExitCode(), 3);
    }

    void shellKilledBySignal()
    {
        const sbw::RunResult result = run(sbw::Language::Shell, "kill -9 $$\n");
        QCOMPARE(result.signal, std::optional<int>(9));
        QCOMPARE(result.exitStatus, std::nullopt);
        QCOMPARE(result.cliExitCode(), 137);
    }

    void timeoutKillsTheScript()
    {
        const sbw::RunResult result = run(sbw::Language::Shell, "sleep 100\n", 2s);
        QVERIFY(result.timedOut);
        QCOMPARE(result.cliExitCode(), 124);
        QVERIFY2(result.wallMs < 10000, qPrintable(QString::number(result.wallMs)));
    }

    void missingImageIsAClearError()
    {
        const sbw::RunResult result = run(sbw::Language::Python, "print(1)\n", 60s, nullptr,
                                          QStringLiteral("no-such-recipe"));
        QVERIFY(result.error.contains(QLatin1String("guest image 'no-such-recipe' is not built")));
        QCOMPARE(result.cliExitCode(), sbw::RunResult::kWorkbenchError);
    }

    void cancelWhileBootingLeavesNothing()
    {
        std::atomic_bool cancel{false};
        std::thread canceller([&] {
            std::this_thread::sleep_for(300ms);
            cancel = true;
        });
        const sbw::RunResult result = run(sbw::Language::Python, "import time\ntime.sleep(100)\n", 60s, &cancel);
        canceller.join();
        QVERIFY2(result.cancelled, qPrintable(result.summary()));
        QVERIFY(result.error.isEmpty());
        QCOMPARE(result.cliExitCode(), 130);
    }

    void deadDaemonIsAClearError()
    {
        sbw::HypervisorConnection nowhere(QStringLiteral("qemu+unix:///system?socket=/nonexistent/libvirt-sock"));
        sbw::RunOptions options;
        options.code = "print(1)\n";
        const sbw::RunResult result = sbw::runEphemeral(nowhere, options, {}, nullptr);
        QVERIFY2(result.error.startsWith(QLatin1String("cannot connect to libvirt at")), qPrintable(result.error));
    }
};

QTEST_GUILESS_MAIN(TestEphemeralRun)
#include "tst_ephemeralrun.moc"
