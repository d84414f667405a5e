#pragma once

#include "action/ActionRecord.h"
#include "base/Expected.h"
#include "base/OutputStream.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

class QThread;

namespace sbw {

class SecretMasker;

/// What is known when an action starts.
struct ActionStart
{
    QString sandbox;
    Actor actor;
    ActionKind kind = ActionKind::Exec;
    QString command; ///< argv or script; masked with the sandbox's secrets before it is stored
    QString workdir;
    Approval approval = Approval::Auto;
    QString approver;
    /// ms the action had already lasted when begin() is called: its row starts that long
    /// before now and its duration includes them (an approval row: the request's wait).
    qint64 elapsedMs = 0;
};

/// How an action ended.
struct ActionEnd
{
    Outcome outcome = Outcome::Succeeded;
    std::optional<int> exitStatus;
    std::optional<int> signal;
    QString error;
    QString artifactsDir; ///< host folder of the files a run gave back; empty for none
    QString networkAddress; ///< network: the server's address the proxy connected to; empty for none
    qint64 bytesSent = 0;     ///< network: bytes from the guest's program to the server
    qint64 bytesReceived = 0; ///< network: bytes from the server to the guest's program
    QString urlBefore; ///< browse: the page's address before the step
    QString urlAfter;  ///< browse: the page's address after it
    FileChanges fileChanges; ///< exec and run: what the command changed (secrets masked when stored)
};

/// Which rows CommandLog::rows() returns. Empty fields match everything.
struct LogFilter
{
    QString sandbox;                   ///< exact name
    std::optional<Actor::Kind> actor;
    std::optional<Outcome> outcome;
    QString text;                      ///< substring of the command, error or sandbox (case-insensitive)
    std::optional<ActionKind> kind;    ///< e.g. ActionKind::Network: a workspace's connections
};

/// The command log: every action on every sandbox as one row of an SQLite database (Qt SQL,
/// WAL journal) at `path`, by default dataDir()/command-log.sqlite. A row is written when the
/// action starts (begin) and completed when it ends (finish), so a workbench that crashes loses
/// no started action: the next open() marks its rows Outcome::Interrupted.
///
/// Rows written by other processes (another window, `sbw`, `sbw mcp`, `sbw serve`) are seen by
/// followOtherWriters(): the log's thread asks SQLite's `PRAGMA data_version` every 250 ms, which
/// changes when another connection committed, and changedElsewhere() says so.
///
/// Output: up to `outputCapBytes` per stream (default 1 MiB) is kept in the database. A stream
/// that passes the cap is kept whole in a file beside the database
/// (command-log-output/<id>.stdout or .stderr) and its row says it was capped.
///
/// Secrets registered with setSecrets() are replaced by SecretMasker::kMask in commands and
/// output before anything is stored. The GUI, the CLI and the MCP server may share one database
/// file from several processes.
///
/// Thread-safe: every call may come from any thread. Database work runs on the log's own thread
/// (calls wait for it; an insert takes about a millisecond); appendOutput() never touches the
/// database. Errors are returned as Error with the SQLite message.
class CommandLog : public QObject
{
    Q_OBJECT

public:
    static constexpr qint64 kDefaultOutputCapBytes = 1024 * 1024;
    /// How often followOtherWriters() looks: a row from another process shows within this.
    static constexpr std::chrono::milliseconds kFollowInterval{250};

    /// Opens (creating if needed) the log at `path`. Errors: the folder or file cannot be
    /// created, the file is not a command log of this version.
    static Expected<std::shared_ptr<CommandLog>> open(const QString& path,
                                                      qint64 outputCapBytes = kDefaultOutputCapBytes);
    static QString defaultPath(); ///< dataDir()/command-log.sqlite
    /// The log at defaultPath(), opened by the first call in this process and shared by every
    /// later one (the window's panes, the CLI's commands). When it cannot be opened every call
    /// returns the same error, and the first one also passes it to `warn` (to show it once) and
    /// to the sbw.log category; the workbench then works without a log.
    static Expected<std::shared_ptr<CommandLog>> openDefault(
        const std::function<void(const QString&)>& warn = {});

    ~CommandLog() override;

    /// Values to mask in `sandbox`'s commands and output from now on (replaces earlier ones).
    void setSecrets(const QString& sandbox, const QList<QByteArray>& values);

    /// Writes the row of an action starting now (start.elapsedMs earlier) and returns its id.
    Expected<qint64> begin(const ActionStart& start);
    /// Adds output of a running action (masked, counted; kept up to the cap or in its file).
    void appendOutput(qint64 id, OutputStream stream, QByteArrayView bytes);
    /// Completes the row: end time, duration (ms), outcome, output sizes and the kept output.
    Expected<void> finish(qint64 id, const ActionEnd& end);

    /// Rows matching `filter`, newest first, at most `limit`.
    Expected<QList<ActionRecord>> rows(const LogFilter& filter, int limit = 1000) const;
    Expected<ActionRecord> row(qint64 id) const;
    /// The whole output of a finished action's stream (from its file when capped).
    Expected<QByteArray> output(qint64 id, OutputStream stream) const;

    /// From now on, polls the database every `interval` on the log's thread and emits
    /// changedElsewhere() after another connection committed (rows of this object's own begin()
    /// and finish() are announced by rowChanged()). Costs one read of SQLite's shared-memory
    /// WAL index per poll, no file I/O. Calling it again changes the interval.
    void followOtherWriters(std::chrono::milliseconds interval = kFollowInterval);

    QString path() const { return m_path; }
    qint64 outputCapBytes() const { return m_outputCap; }

Q_SIGNALS:
    /// A row was added or completed. Emitted on the thread that called begin() or finish().
    void rowChanged(qint64 id);
    /// Another connection (usually another process) added or changed rows; emitted on the
    /// log's thread, only after followOtherWriters().
    void changedElsewhere();

private:
    struct Active;
    class Worker;

    CommandLog(QString path, qint64 outputCap);
    QString outputFile(qint64 id, OutputStream stream) const;
    QList<QByteArray> secretsOf(const QString& sandbox) const;

    QString m_path;
    qint64 m_outputCap;
    QThread* m_thread = nullptr;
    Worker* m_worker = nullptr; ///< lives on m_thread; owns the database connection

    mutable std::mutex m_mutex; ///< guards m_active and m_secrets
    QHash<qint64, std::shared_ptr<Active>> m_active;
    QHash<QString, QList<QByteArray>> m_secrets;
};

} // namespace sbw
