// Limits enforced on the host, on real microVMs: the CPU share caps a busy loop (read by the
// stats sampler), network none leaves the guest only lo and no route out, the output cap and
// the session lifetime end runs and say so in the result.

#include "EphemeralRun.h"
#include "GuestSession.h"
#include "HypervisorConnection.h"
#include "Sandbox.h"
#include "StatsSampler.h"
#include "TestEnvironment.h"

#include <QSignalSpy>
#include <QTest>

using namespace std::chrono_literals;

class TestLimits : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox; ///< 1 vCPU, CPU share 30 % of one host core

    struct Captured
    {
        QByteArray out;
        QByteArray err;
        sbw::ExecStatus status;
    };

    Captured run(const QByteArray& command)
    {
        Captured c;
        sbw::ExecRequest request;
        request.command = command;
        request.timeout = 60s;
        request.onStdout = [&](QByteArrayView bytes) { c.out.append(bytes); };
        request.onStderr = [&](QByteArrayView bytes) { c.err.append(bytes); };
        auto status = m_sandbox->session().exec(request);
        if (status)
            c.status = status.value();
        else
            qWarning() << status.error().message;
        return c;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        sbw::SandboxOptions options;
        options.cpuSharePercent = 30;
        auto sandbox = sbw::Sandbox::start(*m_connection, options);
        QVERIFY2(sandbox.ok(), sandbox ? "" : qPrintable(sandbox.error().message));
        m_sandbox = std::move(sandbox.value());
        auto ready = m_sandbox->waitReady(nullptr);
        QVERIFY2(ready.ok(), ready ? "" : qPrintable(ready.error().message));
    }

    void cpuShareCapsABusyLoop()
    {
        sbw::StatsSampler sampler(m_connection.get());
        QSignalSpy ticks(&sampler, &sbw::StatsSampler::sampled);
        run("yes >/dev/null 2>&1 </dev/null & exit 0");
        sampler.start();
        while (ticks.size() < 6)
            QVERIFY(ticks.wait(5000));
        sampler.stop();
        run("pkill yes; exit 0");
        QStringList figures;
        double sum = 0;
        int count = 0;
        for (const QList<QVariant>& args : std::as_const(ticks).mid(2)) {
            for (const sbw::SandboxSample& s :
                 args.constFirst().value<sbw::StatsTick>().sandboxes) {
                if (s.name != m_sandbox->domainName() || !s.cpuPercent)
                    continue;
                figures << QString::number(*s.cpuPercent, 'f', 1);
                sum += *s.cpuPercent;
                ++count;
            }
        }
        QVERIFY2(count >= 3, qPrintable(figures.join(' ')));
        // 30 % of one core for the vCPU threads; QEMU's other threads add a little.
        QVERIFY2(sum / count <= 38.0 && sum / count >= 15.0, qPrintable(figures.join(' ')));
    }

    void networkNoneHasOnlyLoopback()
    {
        const Captured links = run("exec ls /sys/class/net");
        QCOMPARE(links.out, QByteArray("lo\n"));
        const Captured connect = run("exec python3 -c 'import socket; s=socket.socket(); "
                                     "s.settimeout(5); s.connect((\"1.1.1.1\", 80))'");
        QCOMPARE(connect.status.exitStatus, std::optional<int>(1));
        QVERIFY2(connect.err.contains("Network is unreachable"), connect.err.constData());
    }

    void outputCapEndsTheRun()
    {
        m_sandbox.reset(); // one guest at a time on a 2-core host
        sbw::RunOptions options;
        options.code = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n";
        options.outputCapBytes = 1 << 20;
        options.timeout = 120s;
        const sbw::RunResult result = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::OutputCap));
        QCOMPARE(result.stdoutData.size(), qsizetype(1 << 20));
        QCOMPARE(result.stdoutData, QByteArray(1 << 20, 'x'));
        QCOMPARE(result.summary(), QStringLiteral("stdout passed the output cap of 1048576 bytes; "
                                                  "the rest was dropped and the script killed"));
        QVERIFY(!result.cancelled);
        QVERIFY(!result.timedOut);
    }

    void lifetimeEndsTheRun()
    {
        sbw::RunOptions options;
        options.code = "import time\ntime.sleep(300)\n";
        options.timeout = 120s;
        options.lifetime = 25s;
        const sbw::RunResult result = sbw::runEphemeral(*m_connection, options, {}, nullptr);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.limit, std::optional<sbw::RunLimit>(sbw::RunLimit::Lifetime));
        QVERIFY(result.timedOut);
        QCOMPARE(result.cliExitCode(), 124);
        QCOMPARE(result.summary(),
                 QStringLiteral("the session lifetime of 25 s ran out; the script was killed"));
        QVERIFY2(result.totalMs < 25000 + 15000, qPrintable(QString::number(result.totalMs)));
    }
};

QTEST_GUILESS_MAIN(TestLimits)
#include "tst_limits.moc"
