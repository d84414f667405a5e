// A persistent workspace on a real guest: files survive stop/start, a process survives
// pause/resume and hibernate/wake across a libvirtd restart, checkpoints revert disk and
// memory, and the `sbw ws` CLI drives it. One workspace for the whole executable.

#include "HypervisorConnection.h"
#include "StoragePool.h"
#include "TestEnvironment.h"
#include "Workspace.h"
#include "WorkspaceManager.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <libvirt/libvirt.h>

namespace {

const QString kName = QStringLiteral("test-core");

struct Output
{
    QByteArray out;
    QByteArray err;
    int exitCode = -1;
};

Output sbwWs(const QStringList& arguments)
{
    QProcess process;
    process.start(QStringLiteral(SBW_CLI_PATH), QStringList{QStringLiteral("ws")} + arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(300000))
        return {};
    return {process.readAllStandardOutput(), process.readAllStandardError(), process.exitCode()};
}

QStringList leftovers(const QString& uri)
{
    QStringList found;
    sbw::HypervisorConnection connection(uri);
    if (!connection.ensureOpen())
        return {QStringLiteral("<cannot connect>")};
    virDomainPtr* domains = nullptr;
    const int count = virConnectListAllDomains(connection.handle(), &domains, 0);
    for (int i = 0; i < count; ++i) {
        const QString name = QString::fromUtf8(virDomainGetName(domains[i]));
        if (name.startsWith(QLatin1String("sbw-ws-test")))
            found << name;
        virDomainFree(domains[i]);
    }
    free(domains);
    if (auto pool = sbw::StoragePool::open(connection.handle(), true))
        found << pool->volumeNames(QStringLiteral("sbw-ws-test"));
    return found;
}

} // namespace

class TestWorkspace : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::WorkspaceManager> m_manager;

    sbw::Workspace& ws() { return *m_manager->workspace(kName); }

    Output run(const QString& shellCommand)
    {
        Output output;
        sbw::ExecRequest request;
        request.command =
            sbw::Workspace::commandLine({QStringLiteral("sh"), QStringLiteral("-c"), shellCommand});
        request.onStdout = [&](QByteArrayView bytes) { output.out += bytes; };
        request.onStderr = [&](QByteArrayView bytes) { output.err += bytes; };
        auto status =
            ws().exec(request, std::chrono::steady_clock::now() + std::chrono::seconds(120));
        if (!status)
            output.err = status.error().message.toUtf8();
        else
            output.exitCode = status->exitStatus.value_or(-1);
        return output;
    }

    /// |guest clock − host clock| in seconds.
    double clockSkew()
    {
        const Output now = run(QStringLiteral("date +%s.%N"));
        return std::abs(now.out.trimmed().toDouble() -
                        QDateTime::currentMSecsSinceEpoch() / 1000.0);
    }

    void removeLeftover()
    {
        if (auto old = sbw::Workspace::open(*m_connection, kName))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Own key and records; the images stay in the shared cache.
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
        removeLeftover();

        const Output created = sbwWs({QStringLiteral("create"), kName, QStringLiteral("--memory"),
                                      QStringLiteral("256"), QStringLiteral("--json")});
        QVERIFY2(created.exitCode == 0, created.err.constData());
        const QJsonObject record = QJsonDocument::fromJson(created.out).object();
        QCOMPARE(record.value(QStringLiteral("name")).toString(), kName);
        QCOMPARE(record.value(QStringLiteral("domain")).toString(),
                 QStringLiteral("sbw-ws-test-core"));
        QCOMPARE(record.value(QStringLiteral("memory_mib")).toInt(), 256);
        QVERIFY(QFile::exists(m_data.path() +
                              QStringLiteral("/sandbox-workbench/workspaces/test-core.json")));

        m_manager = std::make_unique<sbw::WorkspaceManager>(m_connection.get());
        QVERIFY(m_manager->refresh().ok());
        QCOMPARE(m_manager->state(kName), sbw::WorkspaceState::Stopped);
        QVERIFY(ws().start().ok());
        const Output ready = run(QStringLiteral("echo ready; pwd"));
        QCOMPARE(ready.out, QByteArray("ready\n/root\n"));
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->state(kName), sbw::WorkspaceState::Running, 30000);
    }

    void cleanupTestCase()
    {
        m_manager.reset();
        if (m_connection)
            removeLeftover();
        QCOMPARE(leftovers(sbw::test::guestUri()), QStringList());
    }

    void fileAndPackageSurviveStopAndStart()
    {
        QCOMPARE(run(QStringLiteral("echo kept > /root/file && sync")).exitCode, 0);
        // A package installed from a local .deb (built in the guest: the workspace has no
        // network) stays installed.
        const Output installed = run(QStringLiteral(
            "set -e; d=/tmp/pkg; mkdir -p $d/DEBIAN $d/usr/local/bin; "
            "printf 'Package: sbw-hello\\nVersion: 1.0\\nArchitecture: all\\n"
            "Maintainer: test <t@example.org>\\nDescription: test package\\n' > $d/DEBIAN/control; "
            "printf '#!/bin/sh\\necho hello from a package\\n' > $d/usr/local/bin/sbw-hello; "
            "chmod 755 $d/usr/local/bin/sbw-hello; dpkg-deb --build $d /root/sbw-hello.deb >/dev/null; "
            "dpkg -i /root/sbw-hello.deb >/dev/null; sync"));
        QVERIFY2(installed.exitCode == 0, installed.err.constData());
        QVERIFY(ws().stop().ok());
        QTRY_COMPARE(m_manager->state(kName), sbw::WorkspaceState::Stopped);
        QVERIFY(!ws().pause().ok()); // refused: not running
        QVERIFY(ws().start().ok());
        QCOMPARE(run(QStringLiteral("cat /root/file")).out, QByteArray("kept\n"));
        QCOMPARE(run(QStringLiteral("dpkg-query -W -f '${Status} ${Version}' sbw-hello; echo; sbw-hello")).out,
                 QByteArray("install ok installed 1.0\nhello from a package\n"));
    }

    void processAndClockSurvivePause()
    {
        QCOMPARE(run(QStringLiteral("sleep 1000 >/dev/null 2>&1 & echo $! > /root/pid")).exitCode,
                 0);
        QVERIFY(ws().pause().ok());
        QTRY_COMPARE(m_manager->state(kName), sbw::WorkspaceState::Paused);
        QTest::qWait(5000);
        QVERIFY(ws().resume().ok());
        QTRY_COMPARE(m_manager->state(kName), sbw::WorkspaceState::Running);
        QCOMPARE(run(QStringLiteral("kill -0 $(cat /root/pid) && echo alive")).out,
                 QByteArray("alive\n"));
        const double skew = clockSkew();
        QVERIFY2(skew < 2.0, qPrintable(QStringLiteral("guest clock off by %1 s").arg(skew)));
    }

    void hibernateSurvivesLibvirtdRestart()
    {
        QVERIFY(ws().hibernate().ok());
        QTRY_COMPARE(m_manager->state(kName), sbw::WorkspaceState::Hibernated);

        // Kill libvirtd (by its pid file) and start it again; the manager reconnects by itself.
        QSignalSpy connected(m_manager.get(), &sbw::WorkspaceManager::connectedChanged);
        QFile pidFile(QStringLiteral("/run/libvirtd.pid"));
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const pid_t daemon = pid_t(pidFile.readAll().trimmed().toInt());
        QVERIFY(daemon > 1);
        QCOMPARE(::kill(daemon, SIGTERM), 0);
        QTRY_VERIFY_WITH_TIMEOUT(::kill(daemon, 0) != 0, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->state(kName), sbw::WorkspaceState::Unknown, 30000);
        QVERIFY(!m_manager->isConnected());
        QCOMPARE(QProcess::execute(QStringLiteral("bash"),
                                   {QStringLiteral(SBW_SOURCE_DIR "/packaging/start-libvirt.sh")}),
                 0);
        QTRY_VERIFY_WITH_TIMEOUT(m_manager->isConnected(), 60000);
        QCOMPARE(m_manager->state(kName), sbw::WorkspaceState::Hibernated);
        QVERIFY(connected.count() >= 2);

        // A new manager (the workbench restarted) finds it by its metadata and wakes it.
        m_manager = std::make_unique<sbw::WorkspaceManager>(m_connection.get());
        QVERIFY(m_manager->refresh().ok());
        QCOMPARE(m_manager->state(kName), sbw::WorkspaceState::Hibernated);
        QVERIFY(ws().wake().ok());
        QCOMPARE(run(QStringLiteral("kill -0 $(cat /root/pid) && echo alive")).out,
                 QByteArray("alive\n"));
        const double skew = clockSkew();
        QVERIFY2(skew < 2.0, qPrintable(QStringLiteral("guest clock off by %1 s").arg(skew)));
    }

    void checkpointsRevertAndDelete()
    {
        QCOMPARE(run(QStringLiteral("echo v1 > /root/version")).exitCode, 0);
        auto a = ws().checkpoint(QStringLiteral("A"), QStringLiteral("version one"));
        QVERIFY2(a.ok(), a ? "" : qPrintable(a.error().message));
        QCOMPARE(run(QStringLiteral("echo v2 > /root/version")).exitCode, 0);
        // A paused workspace can be checkpointed and stays paused.
        QVERIFY(ws().pause().ok());
        QVERIFY(ws().checkpoint(QStringLiteral("B"), QString()).ok());
        QCOMPARE(ws().state(), sbw::WorkspaceState::Paused);
        QVERIFY(ws().resume().ok());
        QCOMPARE(run(QStringLiteral("echo v3 > /root/version")).exitCode, 0);

        auto timeline = ws().checkpoints();
        QVERIFY(timeline.ok());
        QCOMPARE(timeline->size(), 2);
        QCOMPARE(timeline->at(0).name, QStringLiteral("A"));
        QCOMPARE(timeline->at(0).note, QStringLiteral("version one"));
        QCOMPARE(timeline->at(1).name, QStringLiteral("B"));
        QCOMPARE(timeline->at(1).guestState, QStringLiteral("paused"));
        QVERIFY(timeline->at(1).current);

        auto impact = ws().revertImpact(QStringLiteral("A"));
        QVERIFY(impact.ok());
        QVERIFY(impact->guestRunning);
        QCOMPARE(impact->laterCheckpoints, 1);

        QVERIFY(ws().revert(QStringLiteral("A")).ok());
        QCOMPARE(run(QStringLiteral("cat /root/version")).out, QByteArray("v1\n"));

        QVERIFY(ws().deleteCheckpoint(QStringLiteral("A")).ok());
        timeline = ws().checkpoints();
        QCOMPARE(timeline->size(), 1);
        QCOMPARE(timeline->at(0).name, QStringLiteral("B"));
        QVERIFY(ws().revert(QStringLiteral("B")).ok());
        QCOMPARE(ws().state(), sbw::WorkspaceState::Paused); // as B was taken
        QVERIFY(ws().resume().ok());
        QCOMPARE(run(QStringLiteral("cat /root/version")).out, QByteArray("v2\n"));
    }

    void commandLine()
    {
        ws().closeSession(); // the guest's sshd serves one host connection at a time
        Output list = sbwWs({QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(list.exitCode, 0);
        const QJsonArray all = QJsonDocument::fromJson(list.out).array();
        QJsonObject mine;
        for (const auto& value : all)
            if (value.toObject().value(QStringLiteral("name")).toString() == kName)
                mine = value.toObject();
        QCOMPARE(mine.value(QStringLiteral("state")).toString(), QStringLiteral("running"));

        const Output exec =
            sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--"), QStringLiteral("sh"),
                   QStringLiteral("-c"), QStringLiteral("cat version; echo err >&2; exit 3")});
        QCOMPARE(exec.out, QByteArray("v2\n"));
        QCOMPARE(exec.err, QByteArray("err\n"));
        QCOMPARE(exec.exitCode, 3);

        QCOMPARE(sbwWs({QStringLiteral("pause"), kName}).out, QByteArray("test-core: paused\n"));
        QCOMPARE(
            sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--"), QStringLiteral("true")})
                .exitCode,
            125);
        QCOMPARE(sbwWs({QStringLiteral("resume"), kName}).out, QByteArray("test-core: running\n"));

        const Output checkpoint = sbwWs({QStringLiteral("checkpoint"), kName, QStringLiteral("C"),
                                         QStringLiteral("--note"), QStringLiteral("from the cli")});
        QCOMPARE(checkpoint.exitCode, 0);
        const Output listed = sbwWs({QStringLiteral("checkpoint"), kName, QStringLiteral("--list"),
                                     QStringLiteral("--json")});
        const QJsonArray checkpoints = QJsonDocument::fromJson(listed.out).array();
        QCOMPARE(checkpoints.size(), 2);
        QCOMPARE(checkpoints.at(1).toObject().value(QStringLiteral("note")).toString(),
                 QStringLiteral("from the cli"));

        // Without a terminal, revert and rm need --yes; they say what would be lost.
        const Output revert = sbwWs({QStringLiteral("revert"), kName, QStringLiteral("B")});
        QCOMPARE(revert.exitCode, 2);
        QVERIFY2(revert.err.contains("Reverting to 'B' discards every change to disk and memory"),
                 revert.err.constData());
        const Output refused = sbwWs({QStringLiteral("rm"), kName});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(sbw::Workspace::open(*m_connection, kName).ok());

        const Output removed = sbwWs({QStringLiteral("rm"), kName, QStringLiteral("--yes")});
        QCOMPARE(removed.out, QByteArray("deleted workspace test-core\n"));
        QCOMPARE(leftovers(sbw::test::guestUri()), QStringList());
        QVERIFY(!QFile::exists(m_data.path() +
                               QStringLiteral("/sandbox-workbench/workspaces/test-core.json")));
    }
};

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
