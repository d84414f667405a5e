// Exec over the SSH guest channel of one real microVM, booted once for all cases.

#include "TestEnvironment.h"
#include "guest/GuestSession.h"
#include "hypervisor/HypervisorConnection.h"
#include "sandbox/Sandbox.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QTest>

using namespace std::chrono_literals;

namespace {

struct Captured
{
    QByteArray out;
    QByteArray err;
    sbw::ExecStatus status;
};

} // namespace

class TestGuestSession : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::Sandbox> m_sandbox;
    QString m_domainName;

    Captured run(const QByteArray& command, std::chrono::milliseconds timeout = 60s,
                 const QByteArray& input = {})
    {
        Captured captured;
        sbw::ExecRequest request;
        request.command = command;
        request.stdinData = input;
        request.timeout = timeout;
        request.onStdout = [&](QByteArrayView bytes) { captured.out.append(bytes); };
        request.onStderr = [&](QByteArrayView bytes) { captured.err.append(bytes); };
        auto status = m_sandbox->session().exec(request);
        if (!status)
            qWarning() << "exec failed:" << status.error().message;
        else
            captured.status = status.value();
        return captured;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        auto sandbox = sbw::Sandbox::start(*m_connection, {});
        QVERIFY2(sandbox.ok(), sandbox ? "" : qPrintable(sandbox.error().message));
        m_sandbox = std::move(sandbox.value());
        m_domainName = m_sandbox->domainName();
        auto ready = m_sandbox->waitReady(nullptr);
        QVERIFY2(ready.ok(), ready ? "" : qPrintable(ready.error().message));
        QVERIFY(sbw::test::runDomains(m_connection->uri()).contains(m_domainName));
    }

    void pythonPrintsExactBytes()
    {
        const Captured c = run("exec python3 -c 'print(6*7)'");
        QCOMPARE(c.out, QByteArray("42\n"));
        QCOMPARE(c.err, QByteArray());
        QCOMPARE(c.status.exitStatus, std::optional<int>(0));
        QCOMPARE(c.status.signal, std::nullopt);
    }

    void stderrStaysSeparate()
    {
        const Captured c = run("echo out; echo err >&2; echo out2");
        QCOMPARE(c.out, QByteArray("out\nout2\n"));
        QCOMPARE(c.err, QByteArray("err\n"));
    }

    void exitStatusIsReported()
    {
        const Captured c = run("exit 3");
        QCOMPARE(c.status.exitStatus, std::optional<int>(3));
        QCOMPARE(c.status.signal, std::nullopt);
    }

    void signalIsReportedNotZero()
    {
        const Captured c = run("exec sh -c 'kill -9 $$'");
        QCOMPARE(c.status.signal, std::optional<int>(9));
        QCOMPARE(c.status.exitStatus, std::nullopt);
    }

    void stdinReachesTheCommand()
    {
        const Captured c = run("exec cat", 60s, QByteArray("line one\nline two\n"));
        QCOMPARE(c.out, QByteArray("line one\nline two\n"));
    }

    void invalidUtf8ComesBackAsBytes()
    {
        const Captured c = run("printf '\\377\\376\\033[31mx'");
        QCOMPARE(c.out, QByteArray("\xff\xfe\x1b[31mx"));
    }

    void timeoutKillsTheWholeProcessGroup()
    {
        QElapsedTimer timer;
        timer.start();
        // A child in the background and a grandchild: all must go.
        const Captured c = run("sleep 100 & sh -c 'sleep 101' & exec sleep 102", 2s);
        QVERIFY(c.status.timedOut);
        QCOMPARE(c.status.signal, std::optional<int>(9));
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        const Captured left = run("pgrep -a sleep; echo rc=$?");
        QCOMPARE(left.out, QByteArray("rc=1\n"));
    }

    void twentyMegabytesArriveComplete()
    {
        // 20 MiB of a known pattern: compare size and SHA-256 with the guest's own digest.
        const Captured c = run("head -c 20971520 /dev/urandom > /tmp/blob && sha256sum /tmp/blob >&2 && exec cat /tmp/blob",
                               300s);
        QCOMPARE(c.status.exitStatus, std::optional<int>(0));
        QCOMPARE(c.out.size(), qsizetype(20971520));
        const QByteArray digest = QCryptographicHash::hash(c.out, QCryptographicHash::Sha256).toHex();
        QCOMPARE(c.err.left(64), digest);
    }

    void cleanupTestCase()
    {
        m_sandbox.reset();
        if (!m_connection)
            return;
        QVERIFY(!sbw::test::runDomains(m_connection->uri()).contains(m_domainName));
        QVERIFY(!sbw::test::runOverlays(m_connection->uri()).contains(m_domainName + QLatin1String(".qcow2")));
    }
};

QTEST_GUILESS_MAIN(TestGuestSession)
#include "tst_guestsession.moc"
