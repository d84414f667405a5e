#pragma once

#include "changes/FileChange.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace sbw {

/// Who asked for an action. Stored in the command log as kind + name.
struct Actor
{
    enum class Kind
    {
        Person, ///< someone at the workbench window
        Agent,  ///< an MCP client; name = the client's name from its initialize request
        Cli,    ///< the sbw command line
        /// the workbench on its own, for a reason in `name` (e.g. "approval queue": a
        /// workspace paused while an action for it waits, see ApprovalPause)
        Workbench,
        /// a program in the guest (network: a connection to the egress proxy); name: its
        /// address on the guest's loopback, "127.0.0.1:PORT", when known
        Guest,
    };
    Kind kind = Kind::Person;
    QString name; ///< agent client name, or empty

    static QString kindName(Kind kind);                      ///< "person", "agent", "cli", "workbench"
    static std::optional<Kind> kindFromName(const QString& name);
    QString display() const; ///< "person", "cli", "agent (claude-code)", "workbench (approval queue)"
};

/// What kind of action a command-log row records. The names are stable: they are stored.
enum class ActionKind
{
    Exec,       ///< a command in a workspace
    Run,        ///< an ephemeral run
    FileWrite,  ///< a file written through the workbench (MCP write_file)
    Upload,
    Download,
    FileDelete,
    Create,
    Start,
    Stop,
    Pause,
    Resume,
    Hibernate,
    Wake,
    Checkpoint,
    CheckpointDelete,
    Revert,
    Remove,     ///< a workspace deleted
    Approval,   ///< a person's decision on an asked action
    List,       ///< a listing that changes nothing: workspaces, or a guest folder (MCP)
    Network,    ///< a connection a program in a guest asks the egress proxy for
    /// a step in a workspace's browser (navigate, click, type, key, back, read, screenshot);
    /// its subject (ActionRequest::path) is the page's address: the one navigated to, else
    /// the page the step acts on
    Browse,
    /// a workspace forked (Workspace::fork); the row is the source's, its command names the fork
    Fork,
};
QString actionKindName(ActionKind kind);                 ///< "exec", "run", "file-write", ...
std::optional<ActionKind> actionKindFromName(const QString& name);
QList<ActionKind> allActionKinds(); ///< every kind, in the order of the enum

/// How an action ended. Running rows have Outcome::Running; rows left running by a workbench
/// that ended abruptly are marked Interrupted when the log is next opened.
enum class Outcome
{
    Running,
    Succeeded,   ///< exit status 0, or a lifecycle action that worked
    Failed,      ///< exit status ≠ 0 or a signal; a stop that forced the guest off; a
                 ///< download that left entries out
    TimedOut,
    Cancelled,
    Denied,      ///< refused by policy or by a person; never ran
    Error,       ///< the workbench could not do it (see error)
    Interrupted, ///< the workbench ended while it ran
};
QString outcomeName(Outcome outcome); ///< "running", "succeeded", ...
std::optional<Outcome> outcomeFromName(const QString& name);

/// Whether an action needed a person's approval and what they decided.
enum class Approval
{
    Auto,     ///< allowed by policy, or asked by a person or the CLI
    Approved, ///< approved by a person (approver names them)
    Denied,   ///< denied by a person, or asked with nobody there to approve (no approver)
    TimedOut, ///< nobody decided before the deadline; denied
};
QString approvalName(Approval approval); ///< "auto", "approved", "denied", "timed-out"
std::optional<Approval> approvalFromName(const QString& name);

/// One row of the command log (CommandLog). Times are UTC with millisecond precision.
struct ActionRecord
{
    qint64 id = 0;
    QDateTime started;         ///< UTC
    QDateTime ended;           ///< UTC; invalid while running
    QString sandbox;           ///< workspace name, or the ephemeral run's domain name
    Actor actor;
    ActionKind kind = ActionKind::Exec;
    QString command;           ///< argv or script text, secrets masked; empty for lifecycle actions
    QString workdir;           ///< guest working folder; empty when not applicable
    std::optional<int> exitStatus;
    std::optional<int> signal; ///< POSIX signal number that ended the command
    Outcome outcome = Outcome::Running;
    QString error;             ///< workbench error or the reason of a denial
    qint64 durationMs = -1;    ///< ms; -1 while running
    qint64 stdoutBytes = 0;    ///< bytes the command wrote, also beyond the cap
    qint64 stderrBytes = 0;
    bool stdoutCapped = false; ///< stdout passed the log's cap: the whole stream is in a file
    bool stderrCapped = false;
    Approval approval = Approval::Auto;
    QString approver;          ///< who approved or denied; empty for Auto
    /// Host folder of the files an ephemeral run gave back (its out/ folder, RunResult::
    /// artifactsFolder); empty when it gave none or for other actions.
    QString artifactsDir;
    QString networkAddress;   ///< network: the server's address (ActionEnd); empty otherwise
    qint64 bytesSent = 0;     ///< network: bytes from the guest's program to the server
    qint64 bytesReceived = 0; ///< network: bytes from the server to the guest's program
    QString urlBefore;        ///< browse: the page's address before the step; empty otherwise
    QString urlAfter;         ///< browse: the page's address after it (a click may navigate)
    /// exec and run: the files the command created, modified and deleted in its watched folders
    /// (not tracked for other kinds and older rows). CommandLog::rows() leaves out the diffs'
    /// text (FileChange::hasDiff says there is one); CommandLog::row() has them.
    FileChanges fileChanges;

    /// The decision as the log pane and `sbw log` show it: "auto", "denied", "approved by
    /// alice". An approval row (kind Approval) spans the wait from the request to the decision,
    /// so it adds that wait: "approved by alice after 1520 ms", "timed-out after 300000 ms".
    QString approvalText() const;
    /// The outcome as the log pane and `sbw log` show it, in one line: "running", "exit 0",
    /// "signal 9", and for the outcomes without an exit status the outcome with its error
    /// ("denied: not now", "error: cannot resolve …"), or the error alone when it starts with
    /// the outcome's name ("cancelled by the client (agent x)", "denied by policy rule 3 …").
    QString statusText() const;
};

} // namespace sbw

Q_DECLARE_METATYPE(sbw::ActionRecord)
