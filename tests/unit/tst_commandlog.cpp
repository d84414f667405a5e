// The command log on a real SQLite file in a temporary folder.

#include "log/CommandLog.h"
#include "log/LoggedAction.h"
#include "log/SecretMasker.h"

#include <QProcess>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace sbw;

namespace {

/// The test binary run with this argument and a log path is a workbench process that begins
/// one action (sandbox "ws-crash", `make test` by agent "crash-agent"), says "begun" on stdout
/// and then waits to be killed.
constexpr char kBeginAndHang[] = "--begin-action-and-hang";

int beginActionAndHang(const QString& path)
{
    auto log = CommandLog::open(path);
    if (!log) {
        std::fprintf(stderr, "%s\n", qPrintable(log.error().message));
        return 1;
    }
    ActionStart start;
    start.sandbox = QStringLiteral("ws-crash");
    start.actor = {Actor::Kind::Agent, QStringLiteral("crash-agent")};
    start.command = QStringLiteral("make test");
    start.workdir = QStringLiteral("/root/project");
    LoggedAction action(log.value(), start);
    action.output(OutputStream::Stdout, "half of the output");
    std::fputs("begun\n", stdout);
    std::fflush(stdout);
    for (;;)
        ::pause();
}

} // namespace

class TestCommandLog : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString dbPath() const { return m_dir.filePath(QStringLiteral("log/command-log.sqlite")); }

    std::shared_ptr<CommandLog> openLog(qint64 cap = CommandLog::kDefaultOutputCapBytes)
    {
        auto log = CommandLog::open(dbPath(), cap);
        if (!log)
            qFatal("%s", qPrintable(log.error().message));
        return log.value();
    }

    static ActionStart execStart(const QString& sandbox, const QString& command,
                                 Actor::Kind actor = Actor::Kind::Person)
    {
        ActionStart start;
        start.sandbox = sandbox;
        start.actor.kind = actor;
        start.kind = ActionKind::Exec;
        start.command = command;
        start.workdir = QStringLiteral("/root");
        return start;
    }

    /// Runs raw SQL on the file, as another process would.
    void rawSql(const QString& statement)
    {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
            db.setDatabaseName(dbPath());
            QVERIFY(db.open());
            QSqlQuery query(db);
            QVERIFY2(query.exec(statement), qPrintable(statement));
        }
        QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    }

private Q_SLOTS:
    void init()
    {
        QFile::remove(dbPath());
        QFile::remove(dbPath() + QStringLiteral("-wal"));
        QFile::remove(dbPath() + QStringLiteral("-shm"));
    }

    void aRowExistsFromStartToEnd()
    {
        auto log = openLog();
        QSignalSpy changed(log.get(), &CommandLog::rowChanged);
        const auto id = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("python3 -c 'print(1)'")));
        QVERIFY2(id.ok(), id ? "" : qPrintable(id.error().message));

        auto running = log->row(id.value());
        QVERIFY(running.ok());
        QCOMPARE(running->outcome, Outcome::Running);
        QCOMPARE(running->sandbox, QStringLiteral("ws1"));
        QCOMPARE(running->command, QStringLiteral("python3 -c 'print(1)'"));
        QCOMPARE(running->workdir, QStringLiteral("/root"));
        QCOMPARE(running->actor.kind, Actor::Kind::Person);
        QVERIFY(running->started.isValid());
        QCOMPARE(running->started.timeSpec(), Qt::UTC);
        QVERIFY(qAbs(running->started.msecsTo(QDateTime::currentDateTimeUtc())) < 10000);
        QVERIFY(!running->ended.isValid());
        QCOMPARE(running->durationMs, -1);

        log->appendOutput(id.value(), OutputStream::Stdout, "1\n");
        log->appendOutput(id.value(), OutputStream::Stderr, "warn");
        QTest::qWait(20);
        ActionEnd end;
        end.outcome = Outcome::Failed;
        end.exitStatus = 3;
        QVERIFY(log->finish(id.value(), end).ok());

        auto done = log->row(id.value());
        QCOMPARE(done->outcome, Outcome::Failed);
        QCOMPARE(done->exitStatus, std::optional<int>(3));
        QCOMPARE(done->signal, std::optional<int>());
        QVERIFY(done->ended.isValid());
        QVERIFY(done->durationMs >= 20);
        QCOMPARE(done->stdoutBytes, 2);
        QCOMPARE(done->stderrBytes, 4);
        QVERIFY(!done->stdoutCapped);
        QCOMPARE(log->output(id.value(), OutputStream::Stdout).value(), QByteArray("1\n"));
        QCOMPARE(log->output(id.value(), OutputStream::Stderr).value(), QByteArray("warn"));
        QCOMPARE(changed.count(), 2);
        QVERIFY(!log->finish(id.value(), end).ok());
    }

    void aRowMayStartBeforeItIsWritten()
    {
        // An approval row is written at the decision and starts when the request was asked.
        auto log = openLog();
        ActionStart start = execStart(QStringLiteral("demo"), QStringLiteral("exec: make"), Actor::Kind::Agent);
        start.kind = ActionKind::Approval;
        start.elapsedMs = 2500;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const qint64 id = log->begin(start).value();
        QVERIFY(log->finish(id, {}).ok());
        const ActionRecord row = log->row(id).value();
        QVERIFY2(qAbs(row.started.msecsTo(now.addMSecs(-2500))) <= 50, qPrintable(row.started.toString(Qt::ISODateWithMs)));
        QVERIFY2(row.durationMs >= 2500 && row.durationMs < 2550, qPrintable(QString::number(row.durationMs)));
        QVERIFY(row.started.msecsTo(row.ended) >= 2500);
    }

    void outputOverTheCapIsKeptWholeInAFile()
    {
        auto log = openLog(16);
        const auto id = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("yes | head")));
        QByteArray all;
        for (int i = 0; i < 10; ++i) {
            const QByteArray chunk = QByteArray::number(i).repeated(7);
            all += chunk;
            log->appendOutput(id.value(), OutputStream::Stdout, chunk);
        }
        QVERIFY(log->finish(id.value(), {}).ok());
        const auto row = log->row(id.value());
        QVERIFY(row->stdoutCapped);
        QVERIFY(!row->stderrCapped);
        QCOMPARE(row->stdoutBytes, all.size());
        QCOMPARE(log->output(id.value(), OutputStream::Stdout).value(), all);
        QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("log/command-log-output/%1.stdout").arg(id.value()))));
    }

    void bytesThatAreNotUtf8AreKeptExactly()
    {
        auto log = openLog();
        const auto id = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("head -c 4 /dev/urandom")));
        const QByteArray bytes("\xff\x00\x1b[31m\xc3", 8);
        log->appendOutput(id.value(), OutputStream::Stdout, bytes);
        QVERIFY(log->finish(id.value(), {}).ok());
        QCOMPARE(log->output(id.value(), OutputStream::Stdout).value(), bytes);
    }

    void secretsNeverReachTheStore()
    {
        auto log = openLog(32);
        log->setSecrets(QStringLiteral("ws1"), {"tok-123456"});
        const auto id = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("curl -H 'X: tok-123456'")));
        for (const char* chunk : {"got tok-12", "3456 and ", "more tok-123456 ", "then a long tail after the cap"})
            log->appendOutput(id.value(), OutputStream::Stdout, chunk);
        ActionEnd end;
        end.outcome = Outcome::Error;
        end.error = QStringLiteral("refused tok-123456");
        QVERIFY(log->finish(id.value(), end).ok());
        const QString mask = QString::fromUtf8(SecretMasker::kMask);
        const auto row = log->row(id.value());
        QCOMPARE(row->command, QStringLiteral("curl -H 'X: %1'").arg(mask));
        QCOMPARE(row->error, QStringLiteral("refused %1").arg(mask));
        QVERIFY(row->stdoutCapped);
        QCOMPARE(QString::fromUtf8(log->output(id.value(), OutputStream::Stdout).value()),
                 QStringLiteral("got %1 and more %1 then a long tail after the cap").arg(mask));
        QFile db(dbPath());
        QVERIFY(db.open(QIODevice::ReadOnly));
        QVERIFY(!db.readAll().contains("tok-123456"));
    }

    void fileChangesAreStoredWithTheRow()
    {
        auto log = openLog();
        log->setSecrets(QStringLiteral("ws1"), {"tok-123456"});
        const auto id = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("make")));
        ActionEnd end;
        end.exitStatus = 0;
        FileChanges& changes = end.fileChanges;
        changes.tracked = true;
        changes.folders = {QStringLiteral("/root")};
        changes.created = 1;
        changes.deleted = 1;
        changes.modified = 1205; // 1,204 of them not listed
        FileChange created;
        created.path = QStringLiteral("/root/new\ttok-123456");
        created.kind = ChangeKind::Created;
        created.typeAfter = 'f';
        created.sizeAfter = 6;
        created.diff = "+++ b\n+tok-123456\n";
        created.hasDiff = true;
        FileChange deleted;
        deleted.path = QStringLiteral("/root/old.bin");
        deleted.kind = ChangeKind::Deleted;
        deleted.typeBefore = 'f';
        deleted.sizeBefore = 70000;
        deleted.diffNote = QStringLiteral("larger than 64 KiB: no diff");
        FileChange modified;
        modified.path = QStringLiteral("/root/x");
        modified.typeBefore = 'f';
        modified.typeAfter = 'l';
        modified.sizeBefore = 1;
        modified.sizeAfter = 2;
        changes.files = {created, deleted, modified};
        QVERIFY(log->finish(id.value(), end).ok());

        const ActionRecord row = log->row(id.value()).value();
        QCOMPARE(row.fileChanges.summary(), QStringLiteral("1,207 files changed (1 created, 1,205 modified, 1 deleted)"));
        QCOMPARE(row.fileChanges.moreText(), QStringLiteral("1,204 more files changed, not listed"));
        QCOMPARE(row.fileChanges.folders, QStringList{QStringLiteral("/root")});
        QCOMPARE(row.fileChanges.files.size(), 3);
        const QString mask = QString::fromUtf8(SecretMasker::kMask);
        QCOMPARE(row.fileChanges.files[0].path, QStringLiteral("/root/new\t%1").arg(mask));
        QCOMPARE(row.fileChanges.files[0].diff, QByteArray("+++ b\n+") + SecretMasker::kMask + "\n");
        QCOMPARE(row.fileChanges.files[1].kind, ChangeKind::Deleted);
        QCOMPARE(row.fileChanges.files[1].sizeBefore, 70000);
        QCOMPARE(row.fileChanges.files[1].sizeAfter, -1);
        QCOMPARE(row.fileChanges.files[1].diffNote, QStringLiteral("larger than 64 KiB: no diff"));
        QCOMPARE(row.fileChanges.files[2].typeName(), QStringLiteral("symlink"));
        // rows(): the list without the diffs' text.
        const ActionRecord listed = log->rows({}).value().first();
        QCOMPARE(listed.fileChanges.files.size(), 3);
        QVERIFY(listed.fileChanges.files[0].hasDiff);
        QVERIFY(listed.fileChanges.files[0].diff.isEmpty());
        // Unknown changes keep their reason; rows without tracking say nothing.
        const auto other = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("true")));
        ActionEnd unknown;
        unknown.fileChanges = FileChanges::unknownBecause({QStringLiteral("/root")}, QStringLiteral("no list"));
        QVERIFY(log->finish(other.value(), unknown).ok());
        QCOMPARE(log->row(other.value()).value().fileChanges.summary(), QStringLiteral("file changes unknown: no list"));
        const auto untracked = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("true")));
        QVERIFY(log->finish(untracked.value(), ActionEnd{}).ok());
        QVERIFY(!log->row(untracked.value()).value().fileChanges.tracked);
        QFile db(dbPath());
        QVERIFY(db.open(QIODevice::ReadOnly));
        QVERIFY(!db.readAll().contains("tok-123456"));
    }

    void rowsOfAWorkbenchThatDiedAreMarkedInterrupted()
    {
        qint64 id = 0;
        {
            auto log = openLog();
            id = log->begin(execStart(QStringLiteral("ws1"), QStringLiteral("sleep 100"))).value();
        }
        QProcess gone;
        gone.start(QStringLiteral("true"));
        QVERIFY(gone.waitForStarted());
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished());
        rawSql(QStringLiteral("UPDATE actions SET owner_pid=%1 WHERE id=%2").arg(deadPid).arg(id));
        const qint64 live = openLog()->begin(execStart(QStringLiteral("ws1"), QStringLiteral("sleep 1"))).value();

        auto log = openLog();
        QCOMPARE(log->row(id)->outcome, Outcome::Interrupted);
        QCOMPARE(log->row(id)->error, QStringLiteral("the workbench ended while this action ran"));
        QCOMPARE(log->row(live)->outcome, Outcome::Running); // its process (this one) still runs
    }

    /// A workbench process killed with SIGKILL between the start and the end of an action: the
    /// row it began is in the store, running while the process lives and interrupted once the
    /// log is opened after its death.
    void aRowOfAProcessKilledMidActionIsThereMarkedInterrupted()
    {
        const LogFilter crashed{QStringLiteral("ws-crash"), {}, {}, {}, {}};
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(), {QLatin1String(kBeginAndHang), dbPath()});
        QVERIFY(child.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(child.canReadLine() || child.state() == QProcess::NotRunning, 30000);
        QCOMPARE(child.readLine(), QByteArray("begun\n"));

        // Another process opening the log meanwhile sees the row running and leaves it so.
        const ActionRecord begun = openLog()->rows(crashed).value().value(0);
        QCOMPARE(begun.outcome, Outcome::Running);
        QCOMPARE(begun.command, QStringLiteral("make test"));

        QCOMPARE(::kill(pid_t(child.processId()), SIGKILL), 0);
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);

        auto log = openLog();
        const QList<ActionRecord> rows = log->rows(crashed).value();
        QCOMPARE(rows.size(), 1);
        const ActionRecord& row = rows.first();
        QCOMPARE(row.id, begun.id);
        QCOMPARE(row.outcome, Outcome::Interrupted);
        QCOMPARE(outcomeName(row.outcome), QStringLiteral("interrupted"));
        QCOMPARE(row.error, QStringLiteral("the workbench ended while this action ran"));
        QCOMPARE(row.command, QStringLiteral("make test"));
        QCOMPARE(row.workdir, QStringLiteral("/root/project"));
        QCOMPARE(row.actor.kind, Actor::Kind::Agent);
        QCOMPARE(row.actor.name, QStringLiteral("crash-agent"));
        QCOMPARE(row.started, begun.started);
        QVERIFY(!row.ended.isValid());
        QCOMPARE(row.durationMs, qint64(-1));
        QVERIFY(!row.exitStatus && !row.signal);
    }

    void filtersAndNewestFirst()
    {
        auto log = openLog();
        const qint64 a = log->begin(execStart(QStringLiteral("alpha"), QStringLiteral("ls -la"))).value();
        const qint64 b = log->begin(execStart(QStringLiteral("beta"), QStringLiteral("pip install 50%_off"),
                                              Actor::Kind::Agent)).value();
        const qint64 c = log->begin(execStart(QStringLiteral("alpha"), QStringLiteral("rm -rf build"),
                                              Actor::Kind::Cli)).value();
        ActionEnd failed;
        failed.outcome = Outcome::Failed;
        failed.exitStatus = 1;
        QVERIFY(log->finish(a, {}).ok());
        QVERIFY(log->finish(c, failed).ok());

        const auto ids = [&](const LogFilter& filter) {
            QList<qint64> list;
            const auto rows = log->rows(filter);
            for (const ActionRecord& r : rows.value())
                list.append(r.id);
            return list;
        };
        QCOMPARE(ids({}), (QList<qint64>{c, b, a}));
        QCOMPARE(ids({QStringLiteral("alpha"), {}, {}, {}, {}}), (QList<qint64>{c, a}));
        QCOMPARE(ids({{}, Actor::Kind::Agent, {}, {}, {}}), (QList<qint64>{b}));
        QCOMPARE(ids({{}, {}, Outcome::Failed, {}, {}}), (QList<qint64>{c}));
        QCOMPARE(ids({{}, {}, Outcome::Running, {}, {}}), (QList<qint64>{b}));
        QCOMPARE(ids({{}, {}, {}, QStringLiteral("RM -RF"), {}}), (QList<qint64>{c}));
        QCOMPARE(ids({{}, {}, {}, QStringLiteral("50%_"), {}}), (QList<qint64>{b}));
        QCOMPARE(ids({{}, {}, {}, QStringLiteral("5%x"), {}}), (QList<qint64>{}));
        QCOMPARE(log->rows({}, 1).value().size(), 1);
        ActionStart connection = execStart(QStringLiteral("alpha"), QStringLiteral("CONNECT pypi.org:443"),
                                           Actor::Kind::Guest);
        connection.kind = ActionKind::Network;
        const qint64 d = log->begin(connection).value();
        QCOMPARE(ids({QStringLiteral("alpha"), {}, {}, {}, ActionKind::Network}), (QList<qint64>{d}));
        QCOMPARE(ids({{}, {}, {}, {}, ActionKind::Exec}), (QList<qint64>{c, b, a}));
    }

    void manyThreadsWriteAtOnce()
    {
        auto log = openLog();
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&log, t] {
                for (int i = 0; i < 25; ++i) {
                    const auto id = log->begin(execStart(QStringLiteral("t%1").arg(t), QStringLiteral("echo %1").arg(i)));
                    log->appendOutput(id.value(), OutputStream::Stdout, QByteArray::number(i));
                    log->finish(id.value(), {});
                }
            });
        }
        for (auto& thread : threads)
            thread.join();
        const auto rows = log->rows({}, 1000).value();
        QCOMPARE(rows.size(), 100);
        QSet<qint64> ids;
        for (const ActionRecord& r : rows) {
            ids.insert(r.id);
            QCOMPARE(r.outcome, Outcome::Succeeded);
        }
        QCOMPARE(ids.size(), 100);
    }

    void loggedActionsEndEvenWhenAbandoned()
    {
        auto log = openLog();
        qint64 abandonedId = 0;
        {
            LoggedAction action(log, execStart(QStringLiteral("ws1"), QStringLiteral("sleep 9")));
            abandonedId = log->rows({}, 1).value().first().id;
        }
        QCOMPARE(log->row(abandonedId)->outcome, Outcome::Error);
        QCOMPARE(log->row(abandonedId)->error, QStringLiteral("the workbench abandoned the action"));

        LoggedAction noLog(nullptr, execStart(QStringLiteral("ws1"), QStringLiteral("true")));
        noLog.output(OutputStream::Stdout, "ignored");
        noLog.finish({});

        ExecStatus killed;
        killed.signal = 9;
        QCOMPARE(LoggedAction::endOf(Expected<ExecStatus>(killed)).outcome, Outcome::Failed);
        QCOMPARE(LoggedAction::endOf(Expected<ExecStatus>(killed)).signal, std::optional<int>(9));
        ExecStatus timedOut;
        timedOut.timedOut = true;
        timedOut.signal = 9;
        QCOMPARE(LoggedAction::endOf(Expected<ExecStatus>(timedOut)).outcome, Outcome::TimedOut);
        ExecStatus ok;
        ok.exitStatus = 0;
        QCOMPARE(LoggedAction::endOf(Expected<ExecStatus>(ok)).outcome, Outcome::Succeeded);
        const ActionEnd failed = LoggedAction::endOf(Expected<ExecStatus>(makeError(QStringLiteral("guest gone"))));
        QCOMPARE(failed.outcome, Outcome::Error);
        QCOMPARE(failed.error, QStringLiteral("guest gone"));
    }

    // A log of format 1 (before runs linked their artifact folders) opens, keeps its rows and
    // gains the column.
    void aFormatOneLogIsMigrated()
    {
        QDir().mkpath(QFileInfo(dbPath()).absolutePath());
        rawSql(QStringLiteral(
            "CREATE TABLE actions(id INTEGER PRIMARY KEY, started_ms INTEGER NOT NULL, ended_ms INTEGER,"
            " sandbox TEXT NOT NULL, actor_kind TEXT NOT NULL, actor_name TEXT NOT NULL DEFAULT '',"
            " action TEXT NOT NULL, command TEXT NOT NULL DEFAULT '', workdir TEXT NOT NULL DEFAULT '',"
            " exit_status INTEGER, signal INTEGER, outcome TEXT NOT NULL, error TEXT NOT NULL DEFAULT '',"
            " duration_ms INTEGER NOT NULL DEFAULT -1, stdout_bytes INTEGER NOT NULL DEFAULT 0,"
            " stderr_bytes INTEGER NOT NULL DEFAULT 0, stdout_capped INTEGER NOT NULL DEFAULT 0,"
            " stderr_capped INTEGER NOT NULL DEFAULT 0, approval TEXT NOT NULL DEFAULT 'auto',"
            " approver TEXT NOT NULL DEFAULT '', owner_pid INTEGER NOT NULL)"));
        rawSql(QStringLiteral("INSERT INTO actions(started_ms, ended_ms, sandbox, actor_kind, action, "
                              "outcome, exit_status, owner_pid) VALUES(1000, 2000, 'old', 'cli', 'run', "
                              "'succeeded', 0, 1)"));
        rawSql(QStringLiteral("PRAGMA user_version=1"));
        auto log = openLog();
        const auto old = log->rows({});
        QVERIFY(old.ok());
        QCOMPARE(old.value().size(), 1);
        QCOMPARE(old.value().first().sandbox, QStringLiteral("old"));
        QCOMPARE(old.value().first().artifactsDir, QString());

        ActionStart start = execStart(QStringLiteral("sbw-run-x"), QStringLiteral("print(1)"));
        start.kind = ActionKind::Run;
        const auto id = log->begin(start);
        QVERIFY(id.ok());
        ActionEnd end;
        end.exitStatus = 0;
        end.artifactsDir = QStringLiteral("/data/runs/sbw-run-x/out");
        QVERIFY(log->finish(id.value(), end).ok());
        QCOMPARE(log->row(id.value()).value().artifactsDir, QStringLiteral("/data/runs/sbw-run-x/out"));
        log.reset();
        // Opening it again (format 2 now) changes nothing.
        QCOMPARE(openLog()->row(id.value()).value().artifactsDir, QStringLiteral("/data/runs/sbw-run-x/out"));
    }

    void aNewerFormatIsRefusedInWords()
    {
        openLog();
        rawSql(QStringLiteral("PRAGMA user_version=99"));
        const auto log = CommandLog::open(dbPath());
        QVERIFY(!log.ok());
        QVERIFY2(log.error().message.contains(QStringLiteral("newer Sandbox Workbench")), qPrintable(log.error().message));
    }

    void aFileThatIsNotADatabaseIsAClearError()
    {
        QDir().mkpath(QFileInfo(dbPath()).absolutePath());
        QFile junk(dbPath());
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write(QByteArray(4096, 'x'));
        junk.close();
        const auto log = CommandLog::open(dbPath());
        QVERIFY(!log.ok());
        QVERIFY2(log.error().message.startsWith(QStringLiteral("command log: ")), qPrintable(log.error().message));
    }
};

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    if (argc == 3 && qstrcmp(argv[1], kBeginAndHang) == 0)
        return beginActionAndHang(QString::fromLocal8Bit(argv[2]));
    TestCommandLog test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_commandlog.moc"
