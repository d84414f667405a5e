// A persistent workspace on a real guest: NAT reaches the host and resolves names, files and
// packages (.deb, wheel) survive stop/start, a process survives pause/resume and hibernate/wake
// across a libvirtd restart, checkpoints revert disk and memory, and the `sbw ws` CLI drives it (environment
// variables with masked secrets, limits named on stderr and in the command log),
// also while another session holds the workspace. One NAT workspace for the whole executable.

#include "TestEnvironment.h"
#include "guest/SftpClient.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "log/CommandLog.h"
#include "log/SecretMasker.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceManager.h"

#include <QCryptographicHash>
#include <QDataStream>
#include <QDateTime>
#include <QFile>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
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

/// Runs `sbw ws ARGUMENTS` with `input` on a pipe as its stdin, or the file `inputFile`.
Output sbwWs(const QStringList& arguments, const QByteArray& input = {}, const QString& inputFile = {})
{
    QProcess process;
    if (!inputFile.isEmpty())
        process.setStandardInputFile(inputFile);
    process.start(QStringLiteral(SBW_CLI_PATH), QStringList{QStringLiteral("ws")} + arguments);
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(300000))
        return {};
    return {process.readAllStandardOutput(), process.readAllStandardError(), process.exitCode()};
}

/// An HTTP server on the host's loopback that answers every GET with `body`. It runs on its
/// own thread because the test's thread blocks in Workspace::exec(). A guest on the user-mode
/// network reaches the host's loopback at its gateway, 10.0.2.2.
class LoopbackHttpServer
{
public:
    explicit LoopbackHttpServer(const QByteArray& body) : m_server(new QTcpServer)
    {
        m_server->moveToThread(&m_thread);
        m_thread.start();
        QMetaObject::invokeMethod(
            m_server,
            [this, body] {
                QObject::connect(m_server, &QTcpServer::newConnection, m_server, [this, body] {
                    QTcpSocket* socket = m_server->nextPendingConnection();
                    QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket, body] {
                        if (!socket->peek(65536).contains("\r\n\r\n"))
                            return; // the request's header is not complete yet
                        socket->write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
                                      "Content-Length: " +
                                      QByteArray::number(body.size()) + "\r\n\r\n" + body);
                        socket->disconnectFromHost();
                    });
                    QObject::connect(socket, &QTcpSocket::disconnected, socket,
                                     &QObject::deleteLater);
                });
                m_server->listen(QHostAddress::LocalHost);
            },
            Qt::BlockingQueuedConnection);
    }

    ~LoopbackHttpServer()
    {
        QMetaObject::invokeMethod(m_server, [this] { delete m_server; },
                                  Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    quint16 port() const { return m_server->serverPort(); }

private:
    QThread m_thread;
    QTcpServer* m_server; ///< lives on m_thread
};

/// CRC-32 (the zip/zlib polynomial) of `data`.
quint32 crc32(const QByteArray& data)
{
    quint32 crc = 0xFFFFFFFFu;
    for (const char byte : data) {
        crc ^= quint8(byte);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/// A zip archive of `files` (path, content), stored without compression, as wheels may be.
QByteArray zipStored(const QList<std::pair<QByteArray, QByteArray>>& files)
{
    QByteArray archive;
    QByteArray directory;
    QDataStream out(&archive, QIODevice::WriteOnly);
    QDataStream dir(&directory, QIODevice::WriteOnly);
    out.setByteOrder(QDataStream::LittleEndian);
    dir.setByteOrder(QDataStream::LittleEndian);
    const quint16 dosDate = (1 << 5) | 1; // 1980-01-01, 00:00
    for (const auto& [path, content] : files) {
        const quint32 offset = quint32(archive.size());
        const quint32 crc = crc32(content);
        const quint32 size = quint32(content.size());
        out << quint32(0x04034b50) << quint16(20) << quint16(0) << quint16(0) << quint16(0)
            << dosDate << crc << size << size << quint16(path.size()) << quint16(0);
        out.writeRawData(path.constData(), int(path.size()));
        out.writeRawData(content.constData(), int(content.size()));
        dir << quint32(0x02014b50) << quint16(20) << quint16(20) << quint16(0) << quint16(0)
            << quint16(0) << dosDate << crc << size << size << quint16(path.size()) << quint16(0)
            << quint16(0) << quint16(0) << quint16(0) << quint32(0100644u << 16) << offset;
        dir.writeRawData(path.constData(), int(path.size()));
    }
    const quint32 directoryOffset = quint32(archive.size());
    out.writeRawData(directory.constData(), int(directory.size()));
    out << quint32(0x06054b50) << quint16(0) << quint16(0) << quint16(files.size())
        << quint16(files.size()) << quint32(directory.size()) << directoryOffset << quint16(0);
    return archive;
}

/// The pure-Python wheel sbw_hello-1.0-py3-none-any.whl: module sbw_hello with greeting().
QByteArray helloWheel()
{
    QList<std::pair<QByteArray, QByteArray>> files = {
        {"sbw_hello/__init__.py", "def greeting():\n    return 'hello from a wheel'\n"},
        {"sbw_hello-1.0.dist-info/METADATA",
         "Metadata-Version: 2.1\nName: sbw-hello\nVersion: 1.0\nSummary: test package\n"},
        {"sbw_hello-1.0.dist-info/WHEEL",
         "Wheel-Version: 1.0\nGenerator: tst_workspace\nRoot-Is-Purelib: true\n"
         "Tag: py3-none-any\n"},
    };
    QByteArray record;
    for (const auto& [path, content] : files)
        record += path + ",sha256=" +
                  QCryptographicHash::hash(content, QCryptographicHash::Sha256)
                      .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals) +
                  ',' + QByteArray::number(content.size()) + '\n';
    record += "sbw_hello-1.0.dist-info/RECORD,,\n";
    files.append({"sbw_hello-1.0.dist-info/RECORD", record});
    return zipStored(files);
}

} // namespace

class TestWorkspace : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    std::unique_ptr<sbw::HypervisorConnection> m_connection;
    std::unique_ptr<sbw::WorkspaceManager> m_manager;
    LoopbackHttpServer m_http{"served by the host\n"};

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

    /// What the guest's python3 gets for http://10.0.2.2:PORT/page (m_http on the host).
    Output fetchFromHost()
    {
        return run(QStringLiteral(
                       "exec python3 -c 'import sys, urllib.request; sys.stdout.buffer.write("
                       "urllib.request.urlopen(\"http://10.0.2.2:%1/page\", timeout=30).read())'")
                       .arg(m_http.port()));
    }

    static std::chrono::steady_clock::time_point inSeconds(int seconds)
    {
        return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
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

        const Output created =
            sbwWs({QStringLiteral("create"), kName, QStringLiteral("--memory"),
                   QStringLiteral("256"), QStringLiteral("--network"), QStringLiteral("nat"),
                   QStringLiteral("--json")});
        QVERIFY2(created.exitCode == 0, created.err.constData());
        const QJsonObject record = QJsonDocument::fromJson(created.out).object();
        QCOMPARE(record.value(QStringLiteral("name")).toString(), kName);
        QCOMPARE(record.value(QStringLiteral("domain")).toString(),
                 QStringLiteral("sbw-ws-test-core"));
        QCOMPARE(record.value(QStringLiteral("memory_mib")).toInt(), 256);
        QCOMPARE(record.value(QStringLiteral("network")).toString(), QStringLiteral("nat"));
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
        QCOMPARE(sbw::test::leftovers(sbw::test::guestUri(), QStringLiteral("sbw-ws-test")), QStringList());
    }

    void natReachesTheHost()
    {
        // One NIC besides lo, IPv4 only, a default route through the user-mode network's
        // gateway (0202000A is 10.0.2.2 as /proc/net/route writes it), its DNS forwarder.
        QCOMPARE(run(QStringLiteral(
                         "ls /sys/class/net; cat /proc/sys/net/ipv6/conf/eth0/disable_ipv6; "
                         "while read -r dev dest gw _; do [ $dest = 00000000 ] && "
                         "echo default via $gw dev $dev; done </proc/net/route; "
                         "cat /etc/resolv.conf")).out,
                 QByteArray("eth0\nlo\n1\ndefault via 0202000A dev eth0\nnameserver 10.0.2.3\n"));
        const Output page = fetchFromHost();
        QVERIFY2(page.exitCode == 0, page.err.constData());
        QCOMPARE(page.out, QByteArray("served by the host\n"));
    }

    void natResolvesNames()
    {
        // Names are resolved by the host's resolver (through the forwarder at 10.0.2.3); a name
        // the image build needed is one the host can resolve, unless it has no DNS at all.
        const QString name = QStringLiteral("deb.debian.org");
        if (QHostInfo::fromName(name).error() != QHostInfo::NoError)
            QSKIP("the host cannot resolve deb.debian.org");
        const Output resolved = run(QStringLiteral(
            "exec python3 -c 'import socket; "
            "print(sorted({a[4][0] for a in socket.getaddrinfo(\"%1\", 80)}))'").arg(name));
        QVERIFY2(resolved.exitCode == 0, resolved.err.constData());
        QVERIFY2(QRegularExpression(QStringLiteral(R"(^\['\d+\.\d+\.\d+\.\d+'.*\]\n$)"))
                     .match(QString::fromUtf8(resolved.out))
                     .hasMatch(),
                 resolved.out.constData());
    }

    void fileAndPackageSurviveStopAndStart()
    {
        QCOMPARE(run(QStringLiteral("echo kept > /root/file && sync")).exitCode, 0);
        // A package installed from a local .deb (built in the guest) stays installed.
        const Output installed = run(QStringLiteral(
            "set -e; d=/tmp/pkg; mkdir -p $d/DEBIAN $d/usr/local/bin; "
            "printf 'Package: sbw-hello\\nVersion: 1.0\\nArchitecture: all\\n"
            "Maintainer: test <t@example.org>\\nDescription: test package\\n' > $d/DEBIAN/control; "
            "printf '#!/bin/sh\\necho hello from a package\\n' > $d/usr/local/bin/sbw-hello; "
            "chmod 755 $d/usr/local/bin/sbw-hello; dpkg-deb --build $d /root/sbw-hello.deb >/dev/null; "
            "dpkg -i /root/sbw-hello.deb >/dev/null; sync"));
        QVERIFY2(installed.exitCode == 0, installed.err.constData());
        // So does one installed with pip from a wheel file uploaded over SFTP.
        QFile wheel(m_data.filePath(QStringLiteral("sbw_hello-1.0-py3-none-any.whl")));
        QVERIFY(wheel.open(QIODevice::WriteOnly));
        wheel.write(helloWheel());
        wheel.close();
        auto session = ws().session(inSeconds(60));
        QVERIFY2(session.ok(), session ? "" : qPrintable(session.error().message));
        auto sftp = session.value()->openSftp();
        QVERIFY2(sftp.ok(), sftp ? "" : qPrintable(sftp.error().message));
        QVERIFY(sftp.value()->upload(wheel.fileName(), "sbw_hello-1.0-py3-none-any.whl").ok());
        sftp.value().reset();
        session.value().reset();
        const Output pip = run(QStringLiteral(
            "python3 -m pip install --no-index --quiet sbw_hello-1.0-py3-none-any.whl && sync"));
        QVERIFY2(pip.exitCode == 0, pip.err.constData());
        QCOMPARE(pip.err, QByteArray());
        const auto stopped = ws().stop();
        QVERIFY2(stopped.ok(), stopped ? "" : qPrintable(stopped.error().message));
        QVERIFY2(!stopped->forced, qPrintable(stopped->summary()));
        QTRY_COMPARE(m_manager->state(kName), sbw::WorkspaceState::Stopped);
        QVERIFY(!ws().pause().ok()); // refused: not running
        QVERIFY(ws().start().ok());
        QCOMPARE(run(QStringLiteral("cat /root/file")).out, QByteArray("kept\n"));
        QCOMPARE(run(QStringLiteral("dpkg-query -W -f '${Status} ${Version}' sbw-hello; echo; sbw-hello")).out,
                 QByteArray("install ok installed 1.0\nhello from a package\n"));
        QCOMPARE(run(QStringLiteral("cd /tmp && exec python3 -c 'import importlib.metadata as m, "
                                    "sbw_hello; print(m.version(\"sbw-hello\"), "
                                    "sbw_hello.greeting())'")).out,
                 QByteArray("1.0 hello from a wheel\n"));
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
        QCOMPARE(fetchFromHost().out, QByteArray("served by the host\n")); // NAT after restore
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
        // `sbw ws exec` takes a free SSH port while this process holds one (a window would).
        QCOMPARE(run(QStringLiteral("echo held")).out, QByteArray("held\n"));
        Output list = sbwWs({QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(list.exitCode, 0);
        const QJsonArray all = QJsonDocument::fromJson(list.out).array();
        QJsonObject mine;
        for (const auto& value : all)
            if (value.toObject().value(QStringLiteral("name")).toString() == kName)
                mine = value.toObject();
        QCOMPARE(mine.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        QCOMPARE(mine.value(QStringLiteral("checkpoint_before_approved")).toBool(), false);
        QCOMPARE(sbwWs({QStringLiteral("checkpoint"), kName, QStringLiteral("--before-approved"), QStringLiteral("on")}).exitCode, 0);
        list = sbwWs({QStringLiteral("list"), QStringLiteral("--json")});
        for (const auto& value : QJsonDocument::fromJson(list.out).array())
            if (value.toObject().value(QStringLiteral("name")).toString() == kName)
                QCOMPARE(value.toObject().value(QStringLiteral("checkpoint_before_approved")).toBool(), true);
        QCOMPARE(sbwWs({QStringLiteral("checkpoint"), kName, QStringLiteral("--before-approved"), QStringLiteral("off")}).exitCode, 0);

        const Output exec =
            sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--"), QStringLiteral("sh"),
                   QStringLiteral("-c"), QStringLiteral("cat version; echo err >&2; exit 3")});
        QCOMPARE(exec.out, QByteArray("v2\n"));
        QCOMPARE(exec.err, QByteArray("err\n"));
        QCOMPARE(exec.exitCode, 3);
        // It is a CLI row of the command log, quoted as a shell would read it back.
        auto log = sbw::CommandLog::open(sbw::CommandLog::defaultPath());
        QVERIFY(log.ok());
        sbw::LogFilter filter;
        filter.sandbox = kName;
        filter.text = QStringLiteral("cat version");
        const auto rows = log.value()->rows(filter, 1);
        QVERIFY(rows.ok() && rows.value().size() == 1);
        const sbw::ActionRecord row = rows.value().first();
        QCOMPARE(row.actor.kind, sbw::Actor::Kind::Cli);
        QCOMPARE(row.kind, sbw::ActionKind::Exec);
        QCOMPARE(row.command, QStringLiteral("sh -c 'cat version; echo err >&2; exit 3'"));
        QCOMPARE(row.exitStatus, std::optional<int>(3));
        QCOMPARE(log.value()->output(row.id, sbw::OutputStream::Stdout).value(), QByteArray("v2\n"));

        // Environment variables: set by the CLI, injected into every command; a secret value
        // is listed as **** and masked in the command log's row, output and database file.
        const QByteArray secret = "s3cr3t-9f27c1";
        QCOMPARE(sbwWs({QStringLiteral("env"), kName, QStringLiteral("set"),
                        QStringLiteral("TOKEN=") + QString::fromLatin1(secret), QStringLiteral("--secret")})
                     .exitCode,
                 0);
        QCOMPARE(sbwWs({QStringLiteral("env"), kName, QStringLiteral("set"), QStringLiteral("GREETING=it's me")})
                     .exitCode,
                 0);
        QCOMPARE(sbwWs({QStringLiteral("env"), kName, QStringLiteral("set"), QStringLiteral("1BAD=x")})
                     .exitCode,
                 2);
        QCOMPARE(sbwWs({QStringLiteral("env"), kName, QStringLiteral("list")}).out,
                 QByteArray("TOKEN=****  (secret)\nGREETING=it's me\n"));
        const Output printed = sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--"),
                                      QStringLiteral("sh"), QStringLiteral("-c"),
                                      QStringLiteral("echo \"$TOKEN $GREETING\"; echo ") +
                                          QString::fromLatin1(secret)});
        QCOMPARE(printed.exitCode, 0);
        QCOMPARE(printed.out, secret + " it's me\n" + secret + "\n"); // the person's own terminal
        filter.text = QStringLiteral("GREETING");
        const auto secretRows = log.value()->rows(filter, 1);
        QVERIFY(secretRows.ok() && secretRows.value().size() == 1);
        const sbw::ActionRecord secretRow = secretRows.value().first();
        const QString mask = QString::fromUtf8(sbw::SecretMasker::kMask);
        QCOMPARE(secretRow.command,
                 QStringLiteral("sh -c 'echo \"$TOKEN $GREETING\"; echo %1'").arg(mask));
        QCOMPARE(log.value()->output(secretRow.id, sbw::OutputStream::Stdout).value(),
                 QByteArray(sbw::SecretMasker::kMask) + " it's me\n" + sbw::SecretMasker::kMask + "\n");
        for (const QString& suffix : {QString(), QStringLiteral("-wal")}) {
            QFile file(sbw::CommandLog::defaultPath() + suffix);
            if (file.open(QIODevice::ReadOnly))
                QVERIFY2(!file.readAll().contains(secret), qPrintable(file.fileName()));
        }
        QCOMPARE(sbwWs({QStringLiteral("env"), kName, QStringLiteral("unset"), QStringLiteral("TOKEN")})
                     .exitCode,
                 0);
        QCOMPARE(sbwWs({QStringLiteral("env"), kName, QStringLiteral("list")}).out,
                 QByteArray("GREETING=it's me\n"));

        // --stdin passes sbw's stdin, every byte; without it the command's stdin is empty, and
        // sbw says that bytes waiting there were not passed.
        QByteArray bytes;
        for (int i = 0; i < 300000; ++i)
            bytes += char((i * 31 + i / 256) % 256);
        const Output piped = sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--stdin"), QStringLiteral("--"),
                                    QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("sha256sum | cut -c1-64")},
                                   bytes);
        QCOMPARE(piped.exitCode, 0);
        QCOMPARE(piped.out, QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex() + "\n");
        QTemporaryDir inputDir;
        const QString inputFile = inputDir.filePath(QStringLiteral("page.html"));
        QFile page(inputFile);
        QVERIFY(page.open(QIODevice::WriteOnly) && page.write("<p>hi</p>\n") == 10);
        page.close();
        const Output unpassed = sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--"), QStringLiteral("wc"),
                                       QStringLiteral("-c")},
                                      {}, inputFile);
        QCOMPARE(unpassed.exitCode, 0);
        QCOMPARE(unpassed.out, QByteArray("0\n"));
        QCOMPARE(unpassed.err, QByteArray("sbw: stdin is not passed to the command; add --stdin (-i) to pass it\n"));
        const Output passed = sbwWs({QStringLiteral("exec"), kName, QStringLiteral("-i"), QStringLiteral("--"),
                                     QStringLiteral("wc"), QStringLiteral("-c")},
                                    {}, inputFile);
        QCOMPARE(passed.out, QByteArray("10\n"));
        QCOMPARE(passed.err, QByteArray());

        // A limit that ends a command is named on stderr and in the row.
        const Output timedOut = sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--timeout"),
                                       QStringLiteral("1"), QStringLiteral("--"),
                                       QStringLiteral("sleep"), QStringLiteral("30")});
        QCOMPARE(timedOut.exitCode, 124);
        QCOMPARE(timedOut.err, QByteArray("sbw: the timeout of 1 s ran out; the command was killed\n"));
        filter.text = QStringLiteral("sleep 30");
        const auto timedOutRows = log.value()->rows(filter, 1);
        QVERIFY(timedOutRows.ok() && timedOutRows.value().size() == 1);
        QCOMPARE(timedOutRows.value().first().outcome, sbw::Outcome::TimedOut);
        QCOMPARE(timedOutRows.value().first().error,
                 QStringLiteral("the timeout of 1 s ran out; the command was killed"));
        const Output capped = sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--output-cap"),
                                     QStringLiteral("1K"), QStringLiteral("--"), QStringLiteral("yes")});
        QCOMPARE(capped.exitCode, 137);
        QCOMPARE(capped.out, QByteArray("y\n").repeated(512));
        QCOMPARE(capped.err, QByteArray("sbw: stdout passed the output cap of 1024 bytes; the rest "
                                        "was dropped and the command killed\n"));

        // With all four SSH ports held (this session and three more), exec says so.
        std::vector<std::unique_ptr<sbw::Workspace>> others;
        std::vector<std::shared_ptr<sbw::GuestSession>> held;
        for (int i = 0; i < 3; ++i) {
            auto other = sbw::Workspace::open(*m_connection, kName);
            QVERIFY(other.ok());
            auto session = other.value()->session(inSeconds(60));
            QVERIFY2(session.ok(), session ? "" : qPrintable(session.error().message));
            held.push_back(session.value());
            others.push_back(std::move(other.value()));
        }
        const Output busy =
            sbwWs({QStringLiteral("exec"), kName, QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(busy.exitCode, 125);
        QCOMPARE(busy.err,
                 QByteArray("sbw: error: all 4 SSH connections of workspace 'test-core' are in use "
                            "by other workbench windows or sbw commands: end one of them, then "
                            "try again\n"));
        held.clear();
        others.clear();

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
        QCOMPARE(sbw::test::leftovers(sbw::test::guestUri(), QStringLiteral("sbw-ws-test")), QStringList());
        QVERIFY(!QFile::exists(m_data.path() +
                               QStringLiteral("/sandbox-workbench/workspaces/test-core.json")));
    }
};

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
