#include "log/CommandLog.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "log/FileChangeStore.h"
#include "log/SecretMasker.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <vector>
#include <QThread>
#include <QTimer>
#include <QVariant>

#include <atomic>
#include <iterator>
#include <cerrno>
#include <csignal>
#include <optional>
#include <unistd.h>

namespace sbw {
namespace {

constexpr int kSchemaVersion = 5;

/// The tables of format 1; later formats are reached by kMigrations.
const char* const kSchema[] = {
    "CREATE TABLE IF NOT EXISTS actions("
    " id INTEGER PRIMARY KEY,"
    " started_ms INTEGER NOT NULL,"       // UTC, ms since the epoch
    " ended_ms INTEGER,"                  // NULL while running or when interrupted
    " sandbox TEXT NOT NULL,"
    " actor_kind TEXT NOT NULL,"
    " actor_name TEXT NOT NULL DEFAULT '',"
    " action TEXT NOT NULL,"
    " command TEXT NOT NULL DEFAULT '',"
    " workdir TEXT NOT NULL DEFAULT '',"
    " exit_status INTEGER,"
    " signal INTEGER,"
    " outcome TEXT NOT NULL,"
    " error TEXT NOT NULL DEFAULT '',"
    " duration_ms INTEGER NOT NULL DEFAULT -1,"
    " stdout_bytes INTEGER NOT NULL DEFAULT 0,"
    " stderr_bytes INTEGER NOT NULL DEFAULT 0,"
    " stdout_capped INTEGER NOT NULL DEFAULT 0,"
    " stderr_capped INTEGER NOT NULL DEFAULT 0,"
    " approval TEXT NOT NULL DEFAULT 'auto',"
    " approver TEXT NOT NULL DEFAULT '',"
    " owner_pid INTEGER NOT NULL)",       // process that writes the row until it ends
    "CREATE INDEX IF NOT EXISTS actions_sandbox ON actions(sandbox)",
    "CREATE TABLE IF NOT EXISTS outputs("
    " action_id INTEGER NOT NULL REFERENCES actions(id) ON DELETE CASCADE,"
    " stream INTEGER NOT NULL,"           // 1 stdout, 2 stderr
    " data BLOB NOT NULL,"                // up to the cap, secrets masked
    " PRIMARY KEY(action_id, stream))",
};

/// kMigrations[i] turns format i+1 into format i+2, one statement after the other.
const std::vector<std::vector<const char*>> kMigrations = {
    // 2: the host folder of a run's artifacts (RunResult::artifactsFolder), '' for none.
    {"ALTER TABLE actions ADD COLUMN artifacts_dir TEXT NOT NULL DEFAULT ''"},
    // 3: a network row's server address and bytes each way (ActionEnd).
    {"ALTER TABLE actions ADD COLUMN network_address TEXT NOT NULL DEFAULT ''",
     "ALTER TABLE actions ADD COLUMN bytes_sent INTEGER NOT NULL DEFAULT 0",
     "ALTER TABLE actions ADD COLUMN bytes_received INTEGER NOT NULL DEFAULT 0"},
    // 4: a browse row's page address before and after the step (ActionEnd).
    {"ALTER TABLE actions ADD COLUMN url_before TEXT NOT NULL DEFAULT ''",
     "ALTER TABLE actions ADD COLUMN url_after TEXT NOT NULL DEFAULT ''"},
    // 5: an exec's or run's file changes: a header in actions, the listed files in file_changes.
    file_change_store::migration(),
};

const QString kColumns =
    QStringLiteral("id, started_ms, ended_ms, sandbox, actor_kind, actor_name, action, command, workdir, "
                   "exit_status, signal, outcome, error, duration_ms, stdout_bytes, stderr_bytes, "
                   "stdout_capped, stderr_capped, approval, approver, artifacts_dir, network_address, bytes_sent, "
                   "bytes_received, url_before, url_after, ") +
    QLatin1String(file_change_store::kColumns);
/// Where file_change_store::kColumns start in kColumns.
constexpr int kFileChangeColumn = 26;

Error sqlError(const QString& what, const QSqlError& error)
{
    return makeError(QStringLiteral("command log: %1: %2").arg(what, error.text()));
}

/// Qt SQL binds a null QString as NULL; the text columns are NOT NULL.
QVariant text(const QString& value)
{
    return value.isNull() ? QVariant(QString::fromLatin1("")) : QVariant(value);
}

QVariant optionalInt(const std::optional<int>& value)
{
    return value ? QVariant(*value) : QVariant(QMetaType(QMetaType::Int));
}

std::optional<int> intOrNone(const QVariant& value)
{
    return value.isNull() ? std::nullopt : std::optional<int>(value.toInt());
}

QDateTime utcFromMs(const QVariant& value)
{
    return value.isNull() ? QDateTime() : QDateTime::fromMSecsSinceEpoch(value.toLongLong(), Qt::UTC);
}

ActionRecord recordFrom(const QSqlQuery& query)
{
    ActionRecord r;
    r.id = query.value(0).toLongLong();
    r.started = utcFromMs(query.value(1));
    r.ended = utcFromMs(query.value(2));
    r.sandbox = query.value(3).toString();
    r.actor.kind = Actor::kindFromName(query.value(4).toString()).value_or(Actor::Kind::Person);
    r.actor.name = query.value(5).toString();
    r.kind = actionKindFromName(query.value(6).toString()).value_or(ActionKind::Exec);
    r.command = query.value(7).toString();
    r.workdir = query.value(8).toString();
    r.exitStatus = intOrNone(query.value(9));
    r.signal = intOrNone(query.value(10));
    r.outcome = outcomeFromName(query.value(11).toString()).value_or(Outcome::Error);
    r.error = query.value(12).toString();
    r.durationMs = query.value(13).toLongLong();
    r.stdoutBytes = query.value(14).toLongLong();
    r.stderrBytes = query.value(15).toLongLong();
    r.stdoutCapped = query.value(16).toBool();
    r.stderrCapped = query.value(17).toBool();
    r.approval = approvalFromName(query.value(18).toString()).value_or(Approval::Auto);
    r.approver = query.value(19).toString();
    r.artifactsDir = query.value(20).toString();
    r.networkAddress = query.value(21).toString();
    r.bytesSent = query.value(22).toLongLong();
    r.bytesReceived = query.value(23).toLongLong();
    r.urlBefore = query.value(24).toString();
    r.urlAfter = query.value(25).toString();
    QVariantList changes;
    for (int column = kFileChangeColumn; column < query.record().count(); ++column)
        changes << query.value(column);
    r.fileChanges = file_change_store::headerFrom(changes);
    return r;
}

/// The outputs table's stream column: 1 stdout, 2 stderr.
int streamColumn(OutputStream stream)
{
    return stream == OutputStream::Stdout ? 1 : 2;
}

bool processAlive(qint64 pid)
{
    return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
}

QString likePattern(const QString& text)
{
    QString escaped = text;
    escaped.replace(QLatin1Char('\\'), QLatin1String("\\\\"))
        .replace(QLatin1Char('%'), QLatin1String("\\%"))
        .replace(QLatin1Char('_'), QLatin1String("\\_"));
    return QLatin1Char('%') + escaped + QLatin1Char('%');
}

} // namespace

/// Output of one stream of a running action.
struct StreamState
{
    std::unique_ptr<SecretMasker> masker;
    qint64 bytes = 0;      ///< written by the command, before masking
    QByteArray kept;       ///< masked, at most the cap
    bool capped = false;
    std::unique_ptr<QFile> file; ///< the whole masked stream, once capped
};

struct CommandLog::Active
{
    QElapsedTimer timer;
    qint64 elapsedBeforeMs = 0; ///< ActionStart::elapsedMs
    QList<QByteArray> secrets;
    StreamState out;
    StreamState err;
    StreamState& stream(OutputStream which) { return which == OutputStream::Stdout ? out : err; }
};

/// Owns the database connection; every statement runs on its thread.
class CommandLog::Worker : public QObject
{
public:
    explicit Worker(QString connectionName) : m_name(std::move(connectionName)) {}

    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }
    const QString& name() const { return m_name; }

    /// Runs `body` on the worker's thread and returns its result.
    /// Polls `PRAGMA data_version` every `interval`; `onChange` runs when it changed.
    void follow(std::chrono::milliseconds interval, std::function<void()> onChange)
    {
        m_onChange = std::move(onChange);
        if (!m_poll) {
            m_poll = new QTimer(this);
            connect(m_poll, &QTimer::timeout, this, &Worker::poll);
            // A timer must end on its own thread; the log's last call may not reach the thread
            // (a log destroyed after the application object), its end always does.
            connect(
                thread(), &QThread::finished, this,
                [this] {
                    delete m_poll;
                    m_poll = nullptr;
                },
                Qt::DirectConnection);
            m_dataVersion = dataVersion();
        }
        m_poll->start(interval);
    }

    template <typename F> auto call(F&& body) -> decltype(body())
    {
        if (QThread::currentThread() == thread())
            return body();
        std::optional<decltype(body())> result;
        QMetaObject::invokeMethod(this, [&] { result.emplace(body()); }, Qt::BlockingQueuedConnection);
        return std::move(*result);
    }

private:
    /// SQLite's count of commits by other connections; -1 when it cannot be read.
    qint64 dataVersion() const
    {
        QSqlQuery query(db());
        if (!query.exec(QStringLiteral("PRAGMA data_version")) || !query.next())
            return -1;
        return query.value(0).toLongLong();
    }

    void poll()
    {
        const qint64 version = dataVersion();
        if (version == m_dataVersion)
            return;
        m_dataVersion = version;
        m_onChange();
    }

    QString m_name;
    QTimer* m_poll = nullptr;
    qint64 m_dataVersion = -1;
    std::function<void()> m_onChange;
};

QString CommandLog::defaultPath()
{
    return paths::dataDir() + QStringLiteral("/command-log.sqlite");
}

Expected<std::shared_ptr<CommandLog>> CommandLog::openDefault(
    const std::function<void(const QString&)>& warn)
{
    static std::mutex mutex;
    static std::optional<Expected<std::shared_ptr<CommandLog>>> opened;
    std::lock_guard lock(mutex);
    if (opened)
        return *opened;
    opened = open(defaultPath());
    if (!*opened) {
        qCWarning(lcLog) << "working without a command log:" << opened->error().message;
        if (warn)
            warn(opened->error().message);
    }
    return *opened;
}

CommandLog::CommandLog(QString path, qint64 outputCap) : m_path(std::move(path)), m_outputCap(outputCap) {}

Expected<std::shared_ptr<CommandLog>> CommandLog::open(const QString& path, qint64 outputCapBytes)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return makeError(QStringLiteral("command log: cannot create the folder of %1").arg(path));
    std::shared_ptr<CommandLog> log(new CommandLog(path, outputCapBytes));
    static std::atomic_int serial{0};
    log->m_thread = new QThread;
    log->m_thread->setObjectName(QStringLiteral("command-log"));
    log->m_worker = new Worker(QStringLiteral("sbw-command-log-%1").arg(++serial));
    log->m_worker->moveToThread(log->m_thread);
    log->m_thread->start();

    Worker* worker = log->m_worker;
    auto opened = worker->call([&]() -> Expected<void> {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), worker->name());
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        if (!db.open())
            return sqlError(QStringLiteral("cannot open %1").arg(path), db.lastError());
        QSqlQuery query(db);
        for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"}) {
            if (!query.exec(QLatin1String(pragma)))
                return sqlError(QStringLiteral("%1 is not a usable SQLite database").arg(path), query.lastError());
        }
        // One process at a time reads the format and brings the file up to date.
        if (!query.exec(QStringLiteral("BEGIN IMMEDIATE")))
            return sqlError(QStringLiteral("cannot lock %1").arg(path), query.lastError());
        const auto rollback = [&](const Error& error) {
            query.exec(QStringLiteral("ROLLBACK"));
            return error;
        };
        if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
            return rollback(sqlError(QStringLiteral("cannot read the version of %1").arg(path), query.lastError()));
        const int version = query.value(0).toInt();
        if (version > kSchemaVersion)
            return rollback(makeError(QStringLiteral("command log: %1 was written by a newer Sandbox Workbench "
                                                     "(format %2; this one reads %3)")
                                          .arg(path)
                                          .arg(version)
                                          .arg(kSchemaVersion)));
        for (const char* statement : kSchema) {
            if (!query.exec(QLatin1String(statement)))
                return rollback(sqlError(QStringLiteral("cannot create the tables"), query.lastError()));
        }
        Q_ASSERT(kMigrations.size() == kSchemaVersion - 1);
        for (int from = std::max(version, 1); from < kSchemaVersion; ++from) {
            for (const char* statement : kMigrations[size_t(from - 1)]) {
                if (!query.exec(QLatin1String(statement)))
                    return rollback(sqlError(QStringLiteral("cannot update %1 from format %2").arg(path).arg(from),
                                             query.lastError()));
            }
        }
        query.exec(QStringLiteral("PRAGMA user_version=%1").arg(kSchemaVersion));
        if (!query.exec(QStringLiteral("COMMIT")))
            return rollback(sqlError(QStringLiteral("cannot update %1").arg(path), query.lastError()));

        // Rows of workbench processes that ended while their action ran.
        QList<qint64> orphans;
        query.exec(QStringLiteral("SELECT id, owner_pid FROM actions WHERE outcome='running'"));
        while (query.next()) {
            if (!processAlive(query.value(1).toLongLong()))
                orphans.append(query.value(0).toLongLong());
        }
        for (qint64 id : orphans) {
            query.prepare(QStringLiteral("UPDATE actions SET outcome='interrupted', error=? WHERE id=?"));
            query.addBindValue(QStringLiteral("the workbench ended while this action ran"));
            query.addBindValue(id);
            query.exec();
        }
        return {};
    });
    if (!opened)
        return opened.error();
    return log;
}

CommandLog::~CommandLog()
{
    if (!m_worker)
        return;
    m_worker->call([this] {
        m_worker->db().close();
        QSqlDatabase::removeDatabase(m_worker->name());
        return 0;
    });
    m_thread->quit();
    m_thread->wait();
    delete m_worker;
    delete m_thread;
}

void CommandLog::followOtherWriters(std::chrono::milliseconds interval)
{
    m_worker->call([&] {
        m_worker->follow(interval, [this] { Q_EMIT changedElsewhere(); });
        return 0;
    });
}

void CommandLog::setSecrets(const QString& sandbox, const QList<QByteArray>& values)
{
    std::lock_guard lock(m_mutex);
    m_secrets.insert(sandbox, values);
}

QList<QByteArray> CommandLog::secretsOf(const QString& sandbox) const
{
    std::lock_guard lock(m_mutex);
    return m_secrets.value(sandbox);
}

QString CommandLog::outputFile(qint64 id, OutputStream stream) const
{
    return QFileInfo(m_path).absolutePath() + QStringLiteral("/command-log-output/%1.%2")
                                                  .arg(id)
                                                  .arg(stream == OutputStream::Stdout ? QLatin1String("stdout")
                                                                                      : QLatin1String("stderr"));
}

Expected<qint64> CommandLog::begin(const ActionStart& start)
{
    const QList<QByteArray> secrets = secretsOf(start.sandbox);
    const QString command = QString::fromUtf8(SecretMasker::maskAll(start.command.toUtf8(), secrets));
    const qint64 elapsedBeforeMs = std::max<qint64>(0, start.elapsedMs);
    const qint64 startedMs = QDateTime::currentMSecsSinceEpoch() - elapsedBeforeMs;
    auto inserted = m_worker->call([&]() -> Expected<qint64> {
        QSqlQuery query(m_worker->db());
        query.prepare(QStringLiteral(
            "INSERT INTO actions(started_ms, sandbox, actor_kind, actor_name, action, command, workdir, "
            "outcome, approval, approver, owner_pid) VALUES(?,?,?,?,?,?,?,'running',?,?,?)"));
        query.addBindValue(startedMs);
        query.addBindValue(text(start.sandbox));
        query.addBindValue(Actor::kindName(start.actor.kind));
        query.addBindValue(text(start.actor.name));
        query.addBindValue(actionKindName(start.kind));
        query.addBindValue(text(command));
        query.addBindValue(text(start.workdir));
        query.addBindValue(approvalName(start.approval));
        query.addBindValue(text(start.approver));
        query.addBindValue(qint64(QCoreApplication::applicationPid()));
        if (!query.exec())
            return sqlError(QStringLiteral("cannot add a row"), query.lastError());
        return query.lastInsertId().toLongLong();
    });
    if (!inserted)
        return inserted;
    auto active = std::make_shared<Active>();
    active->timer.start();
    active->elapsedBeforeMs = elapsedBeforeMs;
    active->secrets = secrets;
    active->out.masker = std::make_unique<SecretMasker>(secrets);
    active->err.masker = std::make_unique<SecretMasker>(secrets);
    {
        std::lock_guard lock(m_mutex);
        m_active.insert(inserted.value(), active);
    }
    Q_EMIT rowChanged(inserted.value());
    return inserted;
}

namespace {

void keep(StreamState& state, const QByteArray& masked, qint64 cap, const QString& filePath)
{
    if (masked.isEmpty())
        return;
    if (!state.capped && state.kept.size() + masked.size() <= cap) {
        state.kept.append(masked);
        return;
    }
    if (!state.capped) {
        state.capped = true;
        QDir().mkpath(QFileInfo(filePath).absolutePath());
        state.file = std::make_unique<QFile>(filePath);
        if (state.file->open(QIODevice::WriteOnly | QIODevice::Truncate))
            state.file->write(state.kept);
        state.kept.append(masked.first(std::max<qsizetype>(0, cap - state.kept.size())));
    }
    if (state.file->isOpen())
        state.file->write(masked);
}

} // namespace

void CommandLog::appendOutput(qint64 id, OutputStream stream, QByteArrayView bytes)
{
    std::lock_guard lock(m_mutex);
    const auto active = m_active.value(id);
    if (!active)
        return;
    StreamState& state = active->stream(stream);
    state.bytes += bytes.size();
    keep(state, state.masker->feed(bytes), m_outputCap, outputFile(id, stream));
}

Expected<void> CommandLog::finish(qint64 id, const ActionEnd& end)
{
    std::shared_ptr<Active> active;
    {
        std::lock_guard lock(m_mutex);
        active = m_active.take(id);
        if (active) {
            for (OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr}) {
                StreamState& state = active->stream(stream);
                keep(state, state.masker->finish(), m_outputCap, outputFile(id, stream));
                if (state.file)
                    state.file->close();
            }
        }
    }
    if (!active)
        return makeError(QStringLiteral("command log: action %1 is not running").arg(id));
    const QString error = QString::fromUtf8(SecretMasker::maskAll(end.error.toUtf8(), active->secrets));
    auto done = m_worker->call([&]() -> Expected<void> {
        QSqlDatabase db = m_worker->db();
        db.transaction();
        QSqlQuery query(db);
        query.prepare(QStringLiteral(
            "UPDATE actions SET ended_ms=?, duration_ms=?, outcome=?, exit_status=?, signal=?, error=?, "
            "stdout_bytes=?, stderr_bytes=?, stdout_capped=?, stderr_capped=?, artifacts_dir=?, "
            "network_address=?, bytes_sent=?, bytes_received=?, url_before=?, url_after=?, changes_state=?, "
            "changes_note=?, changes_folders=?, changes_created=?, changes_modified=?, changes_deleted=? WHERE id=?"));
        query.addBindValue(QDateTime::currentMSecsSinceEpoch());
        query.addBindValue(active->elapsedBeforeMs + active->timer.elapsed());
        query.addBindValue(outcomeName(end.outcome));
        query.addBindValue(optionalInt(end.exitStatus));
        query.addBindValue(optionalInt(end.signal));
        query.addBindValue(text(error));
        query.addBindValue(active->out.bytes);
        query.addBindValue(active->err.bytes);
        query.addBindValue(active->out.capped);
        query.addBindValue(active->err.capped);
        query.addBindValue(text(end.artifactsDir));
        query.addBindValue(text(end.networkAddress));
        query.addBindValue(end.bytesSent);
        query.addBindValue(end.bytesReceived);
        query.addBindValue(text(end.urlBefore));
        query.addBindValue(text(end.urlAfter));
        for (const QVariant& value : file_change_store::headerValues(end.fileChanges, active->secrets))
            query.addBindValue(value);
        query.addBindValue(id);
        if (!query.exec()) {
            db.rollback();
            return sqlError(QStringLiteral("cannot complete row %1").arg(id), query.lastError());
        }
        for (OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr}) {
            const StreamState& state = active->stream(stream);
            if (state.kept.isEmpty())
                continue;
            query.prepare(QStringLiteral("INSERT OR REPLACE INTO outputs(action_id, stream, data) VALUES(?,?,?)"));
            query.addBindValue(id);
            query.addBindValue(streamColumn(stream));
            query.addBindValue(state.kept);
            if (!query.exec()) {
                db.rollback();
                return sqlError(QStringLiteral("cannot store the output of row %1").arg(id), query.lastError());
            }
        }
        if (auto stored = file_change_store::writeFiles(db, id, end.fileChanges, active->secrets); !stored) {
            db.rollback();
            return stored;
        }
        if (!db.commit())
            return sqlError(QStringLiteral("cannot complete row %1").arg(id), db.lastError());
        return {};
    });
    Q_EMIT rowChanged(id);
    return done;
}

Expected<QList<ActionRecord>> CommandLog::rows(const LogFilter& filter, int limit) const
{
    return m_worker->call([&]() -> Expected<QList<ActionRecord>> {
        QStringList where;
        QVariantList values;
        if (!filter.sandbox.isEmpty()) {
            where << QStringLiteral("sandbox=?");
            values << filter.sandbox;
        }
        if (filter.actor) {
            where << QStringLiteral("actor_kind=?");
            values << Actor::kindName(*filter.actor);
        }
        if (filter.outcome) {
            where << QStringLiteral("outcome=?");
            values << outcomeName(*filter.outcome);
        }
        if (filter.kind) {
            where << QStringLiteral("action=?");
            values << actionKindName(*filter.kind);
        }
        if (!filter.text.isEmpty()) {
            where << QStringLiteral("(command LIKE ? ESCAPE '\\' OR error LIKE ? ESCAPE '\\' OR "
                                    "sandbox LIKE ? ESCAPE '\\')");
            const QString pattern = likePattern(filter.text);
            values << pattern << pattern << pattern;
        }
        QString sql = QStringLiteral("SELECT %1 FROM actions").arg(kColumns);
        if (!where.isEmpty())
            sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
        sql += QStringLiteral(" ORDER BY id DESC LIMIT %1").arg(std::max(0, limit));
        QSqlQuery query(m_worker->db());
        query.prepare(sql);
        for (const QVariant& value : values)
            query.addBindValue(value);
        if (!query.exec())
            return sqlError(QStringLiteral("cannot read rows"), query.lastError());
        QList<ActionRecord> records;
        while (query.next())
            records.append(recordFrom(query));
        if (auto files = file_change_store::readFiles(m_worker->db(), records, false); !files)
            return files.error();
        return records;
    });
}

Expected<ActionRecord> CommandLog::row(qint64 id) const
{
    return m_worker->call([&]() -> Expected<ActionRecord> {
        QSqlQuery query(m_worker->db());
        query.prepare(QStringLiteral("SELECT %1 FROM actions WHERE id=?").arg(kColumns));
        query.addBindValue(id);
        if (!query.exec())
            return sqlError(QStringLiteral("cannot read row %1").arg(id), query.lastError());
        if (!query.next())
            return makeError(QStringLiteral("command log: no row %1").arg(id));
        QList<ActionRecord> records{recordFrom(query)};
        if (auto files = file_change_store::readFiles(m_worker->db(), records, true); !files)
            return files.error();
        return records.front();
    });
}

Expected<QByteArray> CommandLog::output(qint64 id, OutputStream stream) const
{
    auto record = row(id);
    if (!record)
        return record.error();
    const bool capped = stream == OutputStream::Stdout ? record->stdoutCapped : record->stderrCapped;
    if (capped) {
        QFile file(outputFile(id, stream));
        if (!file.open(QIODevice::ReadOnly))
            return makeError(QStringLiteral("command log: cannot read %1: %2").arg(file.fileName(), file.errorString()));
        return file.readAll();
    }
    return m_worker->call([&]() -> Expected<QByteArray> {
        QSqlQuery query(m_worker->db());
        query.prepare(QStringLiteral("SELECT data FROM outputs WHERE action_id=? AND stream=?"));
        query.addBindValue(id);
        query.addBindValue(streamColumn(stream));
        if (!query.exec())
            return sqlError(QStringLiteral("cannot read the output of row %1").arg(id), query.lastError());
        return query.next() ? query.value(0).toByteArray() : QByteArray();
    });
}

} // namespace sbw
