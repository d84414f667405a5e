// A remote libvirt host: this machine's daemon reached over qemu+ssh through an sshd of the
// test's own on the loopback (LoopbackSshd), beside the local qemu:///system connection. Through
// the remote connection: an ephemeral run, the first run of an image the host has not staged
// (its upload's progress), a workspace's exec, terminal, file upload and download, checkpoint
// and revert, and its stats. Killing the sshd loses the remote host while
// the local one keeps working; restarting it brings the remote host back.

#include "LoopbackSshd.h"
#include "NewImageBuild.h"
#include "TestEnvironment.h"
#include "WorkspaceShell.h"
#include "guest/SftpClient.h"
#include "guest/ShellChannel.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "readystate/ReadyStateStore.h"
#include "sandbox/RunLease.h"
#include "run/EphemeralRun.h"
#include "stats/StatsSampler.h"
#include "workspace/Workspace.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <libvirt/libvirt.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace {

const QString kRemoteName = QStringLiteral("rh-remote");
const QString kLocalName = QStringLiteral("rh-local");
const QLatin1String kDomainPrefix("sbw-ws-rh-");
constexpr int kRunTimeoutMs = 120000; // a run that saves the ready state first, under TCG

std::chrono::steady_clock::time_point inSeconds(int seconds)
{
    return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

QByteArray sha256Hex(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}


} // namespace

class TestRemoteHost : public QObject
{
    Q_OBJECT

    QTemporaryDir m_data;
    sbw::test::LoopbackSshd m_sshd;
    std::unique_ptr<sbw::HypervisorConnection> m_local;
    std::unique_ptr<sbw::HypervisorConnection> m_remote;
    std::unique_ptr<sbw::Workspace> m_remoteWs;
    std::unique_ptr<sbw::Workspace> m_localWs;

    /// A running workspace `name` on `connection`, made anew (one left by an earlier run goes).
    std::unique_ptr<sbw::Workspace> startWorkspace(sbw::HypervisorConnection& connection,
                                                   const QString& name)
    {
        removeWorkspace(connection, name);
        sbw::WorkspaceSettings settings;
        settings.memoryMiB = 256;
        auto created = sbw::Workspace::create(connection, name, settings);
        if (!created) {
            qWarning() << "cannot create" << name << created.error().message;
            return {};
        }
        if (auto started = created.value()->start(); !started) {
            qWarning() << "cannot start" << name << started.error().message;
            return {};
        }
        return std::move(created.value());
    }

    /// The run domain of this machine's daemon that is not in `before`; empty when none.
    QString newRunDomain(const QStringList& before) const
    {
        for (const QString& name : sbw::test::runDomains(m_local->uri()))
            if (!before.contains(name))
                return name;
        return {};
    }

    static void removeWorkspace(sbw::HypervisorConnection& connection, const QString& name)
    {
        if (auto old = sbw::Workspace::open(connection, name))
            QVERIFY(old.value()->remove().ok());
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Own client key and records; the images stay in the shared cache.
        QVERIFY(m_data.isValid());
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        auto started = m_sshd.start();
        QVERIFY2(started.ok(), started ? "" : qPrintable(started.error().message));
        m_local = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        m_remote = std::make_unique<sbw::HypervisorConnection>(m_sshd.uri());
        QVERIFY(m_local->ensureOpen().ok());
        auto opened = m_remote->ensureOpen();
        QVERIFY2(opened.ok(), opened ? "" : qPrintable(opened.error().message));
        // As WorkspaceManager does for the window's hosts.
        m_local->setAutoReconnect(true);
        m_remote->setAutoReconnect(true);
    }

    void cleanupTestCase()
    {
        m_remoteWs.reset();
        m_localWs.reset();
        // The remote host is this machine's daemon: the local connection removes both
        // workspaces, also when the remote one is lost because a case failed.
        if (m_local) {
            removeWorkspace(*m_local, kRemoteName);
            removeWorkspace(*m_local, kLocalName);
            QCOMPARE(sbw::test::leftovers(m_local->uri(), kDomainPrefix), QStringList());
            QCOMPARE(sbw::test::runDomains(m_local->uri()), QStringList());
        }
    }

    // A remote host's runs restore its saved ready state (the first run saves it there): each
    // from a copy of the save image made on the host, written with the run's own name. The
    // clones are fresh guests (their own boot ids); no copy, domain or overlay is left, and
    // the state's own image still names the state.
    void ephemeralRun()
    {
        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        options.code = "cat /proc/sys/kernel/random/boot_id; echo to stderr >&2; exit 3\n";
        QStringList bootIds;
        for (int run = 0; run < 2; ++run) {
            const sbw::RunResult result = sbw::runEphemeral(*m_remote, options, {}, nullptr);
            QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
            QCOMPARE(result.stdoutData.size(), 37);
            QCOMPARE(result.stderrData, QByteArray("to stderr\n"));
            QCOMPARE(result.exitStatus, std::optional<int>(3));
            QVERIFY(result.restored);
            bootIds << QString::fromLatin1(result.stdoutData);
            QVERIFY(!sbw::test::runDomains(m_local->uri()).contains(result.domainName));
            QCOMPARE(sbw::test::volumesNamed(m_local->uri(), result.domainName), QStringList());
        }
        QCOMPARE(bootIds.size(), 2);
        QVERIFY2(bootIds[0] != bootIds[1], qPrintable(bootIds.join(QLatin1Char(' '))));

        sbw::ReadyStateStore store(*m_remote);
        const auto wanted = store.wanted(options.sandbox);
        QVERIFY2(wanted.ok(), wanted ? "" : qPrintable(wanted.error().message));
        const auto state = store.find(wanted.value());
        QVERIFY2(state.ok(), state ? "" : qPrintable(state.error().message));
        QVERIFY(state->domainXml.contains(QStringLiteral("<name>%1</name>").arg(wanted->name)));
    }

    // libvirt's restore has no AUTODESTROY, so a restored run of a killed workbench would run
    // on: its lease (renewed while the run lives) runs out, and the host's next run ends it
    // and deletes its overlay.
    void theRunOfAKilledWorkbenchEndsAtTheNextRun()
    {
        const QStringList before = sbw::test::runDomains(m_local->uri());
        QProcess workbench;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SBW_RUN_LEASE_SECONDS"), QStringLiteral("3"));
        workbench.setProcessEnvironment(environment);
        workbench.start(QStringLiteral(SBW_CLI_PATH),
                        {QStringLiteral("run"), QStringLiteral("--connect"), m_sshd.uri(), QStringLiteral("--lang"),
                         QStringLiteral("sh"), QStringLiteral("--timeout"), QStringLiteral("0"), QStringLiteral("-c"),
                         QStringLiteral("sleep 600")});
        QVERIFY(workbench.waitForStarted());
        QString leftName;
        QTRY_VERIFY_WITH_TIMEOUT(!(leftName = newRunDomain(before)).isEmpty() ||
                                     workbench.state() == QProcess::NotRunning,
                                 kRunTimeoutMs);
        QVERIFY2(!leftName.isEmpty(), workbench.readAllStandardError().constData());
        sbw::HypervisorConnection remote(m_sshd.uri());
        QVERIFY(remote.ensureOpen().ok());
        const QByteArray nameUtf8 = leftName.toUtf8();
        virDomainPtr left = virDomainLookupByName(remote.handle(), nameUtf8.constData());
        QVERIFY(left);
        const auto freeLeft = qScopeGuard([left] { virDomainFree(left); });
        // Held: the lease is written at once and moves on while the workbench lives.
        QTRY_VERIFY_WITH_TIMEOUT(sbw::runLeaseUntil(left).isValid(), 30000);
        const QDateTime first = sbw::runLeaseUntil(left);
        QTRY_VERIFY_WITH_TIMEOUT(sbw::runLeaseUntil(left) > first, 30000);

        workbench.kill();
        QVERIFY(workbench.waitForFinished());
        const QDateTime until = sbw::runLeaseUntil(left);
        QTRY_VERIFY_WITH_TIMEOUT(QDateTime::currentDateTimeUtc() > until, 30000);
        QCOMPARE(virDomainIsActive(left), 1); // nothing but the next run ends it

        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        options.code = "echo next\n";
        const sbw::RunResult result = sbw::runEphemeral(*m_remote, options, {}, nullptr);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.stdoutData, QByteArray("next\n"));
        QVERIFY(!sbw::test::runDomains(m_local->uri()).contains(leftName));
        QCOMPARE(sbw::test::volumesNamed(m_local->uri(), leftName), QStringList());
    }

    // A build of the image the host has never seen: the first run uploads it into the host's
    // pool and reports the upload, while the host's pool of pre-booted microVMs asks for the
    // same image at the same moment and waits for that upload instead of writing over it.
    void aNewHostGetsTheImageWithProgress()
    {
        sbw::test::NewImageBuild build({m_local->uri()}); // the same daemon as the remote host
        const auto& image = build.image();
        QVERIFY2(image.ok(), image ? "" : qPrintable(image.error().message));
        const qint64 total = build.totalBytes();

        // The pool's upload starts first and holds at its first report until the run follows it.
        std::mutex mutex;
        std::condition_variable followed;
        QList<QPair<qint64, qint64>> poolSteps;
        QList<QPair<qint64, qint64>> runSteps;
        std::optional<sbw::Expected<sbw::StagedImage>> poolStaged;
        std::thread poolThread([&] {
            sbw::HypervisorConnection connection(m_sshd.uri());
            if (auto opened = connection.ensureOpen(); !opened) {
                poolStaged = opened.error();
                return;
            }
            auto pool = sbw::StoragePool::open(connection.handle(), true);
            if (!pool) {
                poolStaged = pool.error();
                return;
            }
            poolStaged = pool->stage(image.value(), [&](qint64 sent, qint64 all) {
                std::unique_lock lock(mutex);
                poolSteps.append({sent, all});
                if (poolSteps.size() == 1)
                    followed.wait_for(lock, std::chrono::seconds(60), [&] { return !runSteps.isEmpty(); });
            });
        });
        QVERIFY(QTest::qWaitFor([&] { std::lock_guard lock(mutex); return !poolSteps.isEmpty(); }, 60000));

        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        options.code = "echo on a new host\n";
        sbw::RunCallbacks callbacks;
        callbacks.onStaging = [&](qint64 sent, qint64 all) {
            {
                std::lock_guard lock(mutex);
                runSteps.append({sent, all});
            }
            followed.notify_all();
        };
        const sbw::RunResult result = sbw::runEphemeral(*m_remote, options, callbacks, nullptr);
        poolThread.join();
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.stdoutData, QByteArray("on a new host\n"));
        QCOMPARE(result.exitStatus, std::optional<int>(0));
        QVERIFY(poolStaged.has_value());
        QVERIFY2(poolStaged->ok(), *poolStaged ? "" : qPrintable(poolStaged->error().message));

        // Both heard the one upload in order, to its last byte; the uploader from its first.
        QVERIFY(!poolSteps.isEmpty());
        QCOMPARE(poolSteps.first(), qMakePair(qint64(0), total));
        for (const auto& steps : {poolSteps, runSteps}) {
            QVERIFY(!steps.isEmpty());
            QCOMPARE(steps.last(), qMakePair(total, total));
            QVERIFY2(steps.size() <= 12, qPrintable(QString::number(steps.size())));
            for (qsizetype i = 1; i < steps.size(); ++i)
                QVERIFY(steps[i].first > steps[i - 1].first && steps[i].second == total);
        }
        // The host's pool holds this build, byte for byte.
        auto pool = sbw::StoragePool::open(m_remote->handle(), true);
        QVERIFY(pool.ok());
        QStringList staged = pool->volumeNames(image->buildId);
        staged.sort();
        const QString id = image->buildId;
        QCOMPARE(staged, QStringList({id + QLatin1String("-base.qcow2"), id + QLatin1String("-initrd.img"),
                                      id + QLatin1String("-vmlinuz"), id + QLatin1String(".staged")}));
        QCryptographicHash kernel(QCryptographicHash::Sha256);
        QVERIFY(pool->download(id + QLatin1String("-vmlinuz"), 0, 0, [&](QByteArrayView chunk) {
                        kernel.addData(chunk);
                        return true;
                    }).ok());
        QCOMPARE(kernel.result().toHex(), sha256Hex(readFile(image->kernel)));
    }

    void workspaceExec()
    {
        m_remoteWs = startWorkspace(*m_remote, kRemoteName);
        QVERIFY(m_remoteWs);
        QCOMPARE(
            sbw::test::shellOutput(*m_remoteWs, QStringLiteral("echo ready; pwd; echo $((6*7))")),
            QByteArray("ready\n/root\n42\n"));
    }

    void terminal()
    {
        auto session = m_remoteWs->session(inSeconds(60));
        QVERIFY2(session.ok(), session ? "" : qPrintable(session.error().message));
        std::unique_ptr<sbw::ShellChannel> shell = session.value()->openShell(80, 24);
        QByteArray screen;
        std::optional<int> status;
        connect(shell.get(), &sbw::ShellChannel::output, this,
                [&screen](const QByteArray& bytes) { screen += bytes; });
        connect(shell.get(), &sbw::ShellChannel::closed, this,
                [&status](std::optional<int> exitStatus) { status = exitStatus.value_or(-1); });
        // The echoed command line holds "$((6*7))", so only the shell's answer matches.
        shell->write("printf 'pty %s\\n' $((6*7)) \"$(stty size)\"\n");
        QVERIFY2(QTest::qWaitFor([&] { return screen.contains("pty 42\r\npty 24 80\r\n"); }, 30000),
                 screen.constData());
        shell->write("exit 5\n");
        QVERIFY(QTest::qWaitFor([&] { return status.has_value(); }, 30000));
        QCOMPARE(status, std::optional<int>(5));
    }

    void fileUploadAndDownload()
    {
        QTemporaryDir dir;
        QByteArray bytes(4 * 1024 * 1024, Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32*>(bytes.data()),
                                              bytes.size() / 4);
        const QString up = dir.filePath(QStringLiteral("up.bin"));
        const QString down = dir.filePath(QStringLiteral("down.bin"));
        QFile file(up);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size());
        file.close();

        auto session = m_remoteWs->session(inSeconds(60));
        QVERIFY2(session.ok(), session ? "" : qPrintable(session.error().message));
        auto sftp = session.value()->openSftp();
        QVERIFY2(sftp.ok(), sftp ? "" : qPrintable(sftp.error().message));
        auto uploaded = sftp.value()->upload(up, "/root/blob.bin");
        QVERIFY2(uploaded.ok(), uploaded ? "" : qPrintable(uploaded.error().message));
        QCOMPARE(sbw::test::shellOutput(*m_remoteWs, QStringLiteral("sha256sum < blob.bin")),
                 sha256Hex(bytes) + "  -\n");
        auto downloaded = sftp.value()->download("/root/blob.bin", down);
        QVERIFY2(downloaded.ok(), downloaded ? "" : qPrintable(downloaded.error().message));
        QCOMPARE(sha256Hex(readFile(down)), sha256Hex(bytes));
    }

    void checkpointAndRevert()
    {
        QCOMPARE(sbw::test::shellOutput(*m_remoteWs, QStringLiteral("echo v1 > version")),
                 QByteArray());
        QTRY_COMPARE_WITH_TIMEOUT(m_remoteWs->state(), sbw::WorkspaceState::Running, 60000);
        auto taken = m_remoteWs->checkpoint(QStringLiteral("one"), QStringLiteral("before v2"));
        QVERIFY2(taken.ok(), taken ? "" : qPrintable(taken.error().message));
        QCOMPARE(
            sbw::test::shellOutput(*m_remoteWs, QStringLiteral("echo v2 > version; cat version")),
            QByteArray("v2\n"));
        auto timeline = m_remoteWs->checkpoints();
        QVERIFY(timeline.ok());
        QCOMPARE(timeline->size(), 1);
        QCOMPARE(timeline->at(0).name, QStringLiteral("one"));
        QCOMPARE(timeline->at(0).note, QStringLiteral("before v2"));
        auto reverted = m_remoteWs->revert(QStringLiteral("one"));
        QVERIFY2(reverted.ok(), reverted ? "" : qPrintable(reverted.error().message));
        QCOMPARE(sbw::test::shellOutput(*m_remoteWs, QStringLiteral("cat version")),
                 QByteArray("v1\n"));
    }

    void stats()
    {
        sbw::StatsSampler sampler(m_remote.get());
        QSignalSpy ticks(&sampler, &sbw::StatsSampler::sampled);
        sampler.start();
        const QString domain = QStringLiteral("sbw-ws-") + kRemoteName;
        // The guest's balloon driver reports its figures once a second after boot or revert.
        std::optional<sbw::SandboxSample> sample;
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (const QList<QVariant>& args : std::as_const(ticks))
                    for (const sbw::SandboxSample& s :
                         args.constFirst().value<sbw::StatsTick>().sandboxes)
                        if (s.name == domain && s.memoryUsedMiB && s.memoryTotalMiB &&
                            s.residentMiB)
                            sample = s;
                return sample.has_value();
            },
            30000));
        QCOMPARE(sample->state, sbw::DomainState::Running);
        QVERIFY2(*sample->memoryTotalMiB > 100 && *sample->memoryTotalMiB <= 256,
                 qPrintable(QString::number(*sample->memoryTotalMiB)));
        QVERIFY2(*sample->memoryUsedMiB > 0 && *sample->memoryUsedMiB < *sample->memoryTotalMiB,
                 qPrintable(QString::number(*sample->memoryUsedMiB)));
        QVERIFY2(*sample->residentMiB > 0, qPrintable(QString::number(*sample->residentMiB)));
    }

    // The remote host goes away (its sshd and every connection through it are killed): the
    // remote connection says so at once and retries; the local host works on meanwhile; the
    // remote host and its workspace are back once sshd is.
    void lostHostComesBack()
    {
        m_localWs = startWorkspace(*m_local, kLocalName);
        QVERIFY(m_localWs);
        QCOMPARE(sbw::test::shellOutput(*m_localWs, QStringLiteral("echo local")),
                 QByteArray("local\n"));

        // A terminal open on the remote workspace when its host goes.
        auto session = m_remoteWs->session(inSeconds(60));
        QVERIFY2(session.ok(), session ? "" : qPrintable(session.error().message));
        std::unique_ptr<sbw::ShellChannel> shell = session.value()->openShell(80, 24);
        QByteArray screen;
        QStringList errors;
        std::optional<int> closedWith;
        connect(shell.get(), &sbw::ShellChannel::output, this,
                [&screen](const QByteArray& bytes) { screen += bytes; });
        connect(shell.get(), &sbw::ShellChannel::errorOccurred, this,
                [&errors](const QString& message) { errors << message; });
        connect(
            shell.get(), &sbw::ShellChannel::closed, this,
            [&closedWith](std::optional<int> exitStatus) { closedWith = exitStatus.value_or(-1); });
        shell->write("echo open $((2*3))\n");
        QVERIFY2(QTest::qWaitFor([&] { return screen.contains("open 6\r\n"); }, 30000),
                 screen.constData());
        session.value().reset();

        QSignalSpy disconnected(m_remote.get(), &sbw::HypervisorConnection::disconnected);
        QSignalSpy retries(m_remote.get(), &sbw::HypervisorConnection::reconnectScheduled);
        QSignalSpy reconnected(m_remote.get(), &sbw::HypervisorConnection::reconnected);
        m_sshd.kill();
        QTRY_COMPARE_WITH_TIMEOUT(disconnected.size(), 1, 20000);
        QCOMPARE(disconnected.first().first().toString(),
                 QStringLiteral("the connection to 127.0.0.1 ended (the libvirt daemon closed the connection)"));
        QVERIFY(!m_remote->handle()); // the dead connection was dropped
        QVERIFY(!retries.isEmpty());
        QCOMPARE(retries.first().first().toInt(), 1); // the first retry in 1 s
        // The terminal says that its connection broke (its channel got no event from libvirt).
        QVERIFY(QTest::qWaitFor([&] { return closedWith.has_value(); }, 10000));
        QCOMPARE(closedWith, std::optional<int>(-1));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().startsWith(QLatin1String("the connection to the guest broke")),
                 qPrintable(errors.first()));
        QCOMPARE(sbw::test::shellOutput(*m_remoteWs, QStringLiteral("echo remote")),
                 QByteArray(
                     "exec failed: cannot run a command in workspace 'rh-remote': it is unknown"));
        QCOMPARE(sbw::test::shellOutput(*m_localWs, QStringLiteral("echo still $((6*7))")),
                 QByteArray("still 42\n"));
        QVERIFY(m_local->handle());

        auto restarted = m_sshd.start();
        QVERIFY2(restarted.ok(), restarted ? "" : qPrintable(restarted.error().message));
        QTRY_COMPARE_WITH_TIMEOUT(reconnected.size(), 1, 40000);
        QCOMPARE(disconnected.size(), 1);
        QVERIFY(m_remote->handle());
        QCOMPARE(sbw::test::shellOutput(*m_remoteWs, QStringLiteral("cat version; echo back")),
                 QByteArray("v1\nback\n"));
    }
};

QTEST_GUILESS_MAIN(TestRemoteHost)
#include "tst_remotehost.moc"
