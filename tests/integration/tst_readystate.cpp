// Runs restored from one saved ready state: two clones do not share their random pool, boot id
// or clock; eight restored at once all give exact output; an image rebuilt (another build of
// the same recipe) gets a state of its own, and the older build's state is deleted. The cases of
// a single run (output, status, signals, timeout, files) are tst_ephemeralrun's, in both modes.

#include "TestEnvironment.h"
#include "base/DataPaths.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "readystate/ReadyStateStore.h"
#include "run/EphemeralRun.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <future>
#include <thread>
#include <utility>
#include <vector>

using namespace std::chrono_literals;

class TestReadyState : public QObject
{
    Q_OBJECT

    std::unique_ptr<sbw::HypervisorConnection> m_connection;

    sbw::RunResult restoredRun(const QByteArray& shell, QList<sbw::RunPhase>* phases = nullptr,
                               int maxSandboxes = 0, std::atomic<int>* queued = nullptr)
    {
        sbw::RunOptions options;
        options.language = sbw::Language::Shell;
        options.code = shell;
        options.source = sbw::SandboxSource::Restore;
        options.maxSandboxes = maxSandboxes;
        sbw::RunCallbacks callbacks;
        if (phases)
            callbacks.onPhase = [phases](sbw::RunPhase phase) { phases->append(phase); };
        bool counted = false;
        if (queued)
            callbacks.onQueued = [queued, &counted](int, int) {
                if (!std::exchange(counted, true))
                    ++*queued;
            };
        return sbw::runEphemeral(*m_connection, options, callbacks, nullptr);
    }

    QString stateName()
    {
        auto wanted = sbw::ReadyStateStore(*m_connection).wanted(sbw::SandboxOptions{});
        return wanted ? wanted->name : QString();
    }

    bool stateExists(const QString& name) { return sbw::ReadyStateStore(*m_connection).find({name, {}, {}, 0}).ok(); }

private Q_SLOTS:
    void initTestCase()
    {
        m_connection = std::make_unique<sbw::HypervisorConnection>(sbw::test::guestUri());
        QVERIFY(m_connection->ensureOpen().ok());
    }

    void cleanup()
    {
        QCOMPARE(sbw::test::runDomains(m_connection->uri()), QStringList());
        QCOMPARE(sbw::test::runOverlays(m_connection->uri()), QStringList());
    }

    void eightRunsAtOnceAreExact()
    {
        std::vector<std::future<sbw::RunResult>> runs;
        for (int i = 0; i < 8; ++i)
            runs.push_back(std::async(std::launch::async, [this, i] {
                return restoredRun("echo run " + QByteArray::number(i) + " $(( " + QByteArray::number(i) + " * 7 ))\n");
            }));
        for (int i = 0; i < 8; ++i) {
            const sbw::RunResult result = runs[size_t(i)].get();
            QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
            QVERIFY(result.restored);
            QCOMPARE(result.stdoutData, "run " + QByteArray::number(i) + ' ' + QByteArray::number(i * 7) + '\n');
            QCOMPARE(result.exitStatus, std::optional<int>(0));
        }
    }

    // With at most two at once, five runs started together: never more than two microVMs, the
    // others wait in the queue, and all five finish exactly.
    void maximumTwoMakesTheOthersQueue()
    {
        std::atomic<int> queued{0};
        std::atomic_bool done{false};
        std::atomic<int> most{0};
        auto watcher = std::async(std::launch::async, [&] {
            while (!done) {
                most = std::max(most.load(), int(sbw::test::runDomains(m_connection->uri()).size()));
                std::this_thread::sleep_for(100ms);
            }
        });
        std::vector<std::future<sbw::RunResult>> runs;
        for (int i = 0; i < 5; ++i)
            runs.push_back(std::async(std::launch::async, [this, i, &queued] {
                return restoredRun("sleep 3; echo run " + QByteArray::number(i) + '\n', nullptr, 2, &queued);
            }));
        for (int i = 0; i < 5; ++i) {
            const sbw::RunResult result = runs[size_t(i)].get();
            QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
            QCOMPARE(result.stdoutData, "run " + QByteArray::number(i) + '\n');
        }
        done = true;
        watcher.get();
        QVERIFY2(most <= 2, qPrintable(QString::number(most)));
        QCOMPARE(most.load(), 2);
        QVERIFY2(queued >= 3, qPrintable(QString::number(queued)));
    }

    // Firecracker's snapshot clones share their entropy until reseeded; ours are reseeded
    // before anything of the run starts. The state was saved at least the eight runs above ago,
    // so a clock left as saved would be that far behind.
    void clonesDoNotShareRandomness()
    {
        const QByteArray script = "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'; echo\n"
                                  "cat /proc/sys/kernel/random/uuid /proc/sys/kernel/random/boot_id\n"
                                  "date +%s\n"
                                  "grep -c ' /proc/sys/kernel/random/boot_id ' /proc/self/mountinfo\n";
        auto first = std::async(std::launch::async, [&] { return restoredRun(script); });
        auto second = std::async(std::launch::async, [&] { return restoredRun(script); });
        const sbw::RunResult a = first.get();
        const sbw::RunResult b = second.get();
        for (const sbw::RunResult* result : {&a, &b}) {
            QVERIFY2(result->error.isEmpty(), qPrintable(result->error));
            QVERIFY(result->restored);
            QCOMPARE(result->exitStatus, std::optional<int>(0));
            const QList<QByteArray> lines = result->stdoutData.split('\n');
            QCOMPARE(lines.size(), 6);
            QCOMPARE(lines[0].size(), 64);
            const qint64 guestNow = lines[3].toLongLong();
            QVERIFY2(qAbs(guestNow - QDateTime::currentSecsSinceEpoch()) <= 5, lines[3].constData());
            QCOMPARE(lines[4], QByteArray("1")); // the boot id the reseed bound over the saved one
        }
        const QList<QByteArray> linesA = a.stdoutData.split('\n');
        const QList<QByteArray> linesB = b.stdoutData.split('\n');
        QVERIFY2(linesA[0] != linesB[0], "the two clones read the same bytes from /dev/urandom");
        QVERIFY2(linesA[1] != linesB[1], "the two clones made the same random UUID");
        QVERIFY2(linesA[2] != linesB[2], "the two clones have the same boot id");
    }

    // Every option set has its state; past four, the ones saved longest ago go (disk is bounded).
    void atMostFourStatesAreKept()
    {
        QStringList saved;
        for (int memoryMiB : {256, 320, 384, 448}) {
            sbw::RunOptions options;
            options.language = sbw::Language::Shell;
            options.code = "true";
            options.source = sbw::SandboxSource::Restore;
            options.sandbox.memoryMiB = memoryMiB;
            const sbw::RunResult result = sbw::runEphemeral(*m_connection, options, {}, nullptr);
            QVERIFY2(result.error.isEmpty() && result.restored, qPrintable(result.error));
            auto wanted = sbw::ReadyStateStore(*m_connection).wanted(options.sandbox);
            QVERIFY(wanted.ok());
            saved << wanted->name;
        }
        auto pool = sbw::StoragePool::open(m_connection->handle(), sbw::isSystemUri(m_connection->uri()));
        QVERIFY(pool.ok());
        QStringList complete;
        for (const QString& volume : pool->volumeNames(QStringLiteral("sbw-state-")))
            if (volume.endsWith(QLatin1String(".ready")))
                complete << volume.chopped(6);
        complete.sort();
        saved.sort();
        QCOMPARE(complete, saved);
        QVERIFY(!stateExists(stateName())); // the default options' state was older
    }

    // Another build of the image (here: the same files with another build time) gets its own
    // state, saved at its first run; the older build's state is deleted then.
    void rebuiltImageSavesANewState()
    {
        const QString current = stateName();
        QVERIFY(!current.isEmpty());
        QVERIFY(restoredRun("true").restored);
        QVERIFY(stateExists(current));

        QTemporaryDir cache;
        const QString real = QFileInfo(sbw::paths::imagesDir() + QStringLiteral("/minimal")).canonicalFilePath();
        const QString copy = cache.filePath(QStringLiteral("sandbox-workbench/images/") + QFileInfo(real).fileName());
        QVERIFY(QDir().mkpath(copy));
        for (const QFileInfo& file : QDir(real).entryInfoList(QDir::Files))
            if (file.fileName() != QLatin1String("manifest.json"))
                QVERIFY(QFile::link(file.absoluteFilePath(), copy + QLatin1Char('/') + file.fileName()));
        QFile manifest(real + QStringLiteral("/manifest.json"));
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        QJsonObject json = QJsonDocument::fromJson(manifest.readAll()).object();
        json.insert(QStringLiteral("built"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
        QFile rebuilt(copy + QStringLiteral("/manifest.json"));
        QVERIFY(rebuilt.open(QIODevice::WriteOnly) && rebuilt.write(QJsonDocument(json).toJson()) > 0);
        rebuilt.close();
        QVERIFY(QFile::link(QFileInfo(copy).fileName(), cache.filePath(QStringLiteral("sandbox-workbench/images/minimal"))));

        const QByteArray realCache = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
        const QString other = stateName();
        QList<sbw::RunPhase> phases;
        const sbw::RunResult result = restoredRun("echo rebuilt\n", &phases);
        const QString otherBuild = other.section(QLatin1Char('-'), 2, 3);
        if (realCache.isEmpty())
            qunsetenv("XDG_CACHE_HOME");
        else
            qputenv("XDG_CACHE_HOME", realCache);
        QVERIFY(!other.isEmpty() && other != current);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.stdoutData, QByteArray("rebuilt\n"));
        QVERIFY(phases.contains(sbw::RunPhase::SavingState));
        QVERIFY(stateExists(other));
        QVERIFY2(!stateExists(current), "the older build's state is still there");

        // Back to the real build: its state is saved anew, the other build's deleted.
        phases.clear();
        QVERIFY(restoredRun("true", &phases).restored);
        QVERIFY(phases.contains(sbw::RunPhase::SavingState));
        QVERIFY(stateExists(current));
        QVERIFY(!stateExists(other));
        auto pool = sbw::StoragePool::open(m_connection->handle(), sbw::isSystemUri(m_connection->uri()));
        QVERIFY(pool.ok());
        for (const QString& volume : pool->volumeNames(otherBuild)) // the staged copy of the other build
            QVERIFY(pool->deleteVolume(volume).ok());
    }
};

QTEST_GUILESS_MAIN(TestReadyState)
#include "tst_readystate.moc"
