#pragma once

#include "action/ActionRecord.h"
#include "action/InputFile.h"
#include "network/NetworkDestination.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace sbw {

/// Lets whoever asked for an action take the request back while it waits for a person (an
/// agent that cancelled its call or went away): a queue holding the request drops it, and the
/// gate's `done` gets a denial with the withdrawal's reason. Lives on the gate's thread.
class ActionWithdrawal : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    /// Emits withdrawn(reason) once; later calls do nothing.
    void withdraw(const QString& reason)
    {
        if (m_done)
            return;
        m_done = true;
        Q_EMIT withdrawn(reason);
    }
    bool isWithdrawn() const { return m_done; }

Q_SIGNALS:
    void withdrawn(const QString& reason);

private:
    bool m_done = false;
};

/// An action somebody asks the workbench to do, as the policy and the approval queue see it.
/// Built by the caller (MCP tool, CLI, GUI) before anything runs in a sandbox.
struct ActionRequest
{
    QString sandbox;     ///< workspace name; empty for an ephemeral run (no sandbox yet)
    Actor actor;         ///< who asks; agents carry their MCP client name
    ActionKind kind = ActionKind::Exec; ///< Exec, Run, FileWrite, FileDelete, Upload, Pause, ...
    QString command;     ///< exec: the command line as shell words; run: the script text
    QString language;    ///< run: "python" or "sh"; otherwise empty
    QString workdir;     ///< exec: guest working folder; empty for the default
    /// exec: "NAME=value" variables the caller sets for the command, in the order given. The
    /// approver sees them, and policy patterns match "NAME=value … command" (policySubject()).
    QStringList environment;
    QString path;        ///< file actions: the guest path
    QByteArray content;  ///< file write: the new content (the approval queue diffs it)
    QList<InputFile> inputFiles;       ///< run: files placed in its working folder first
    NetworkDestination destination;    ///< network: where a program in the guest connects
    /// Set by an asker that may take the request back (MCP calls); null: it cannot.
    QPointer<ActionWithdrawal> withdrawal;
};

/// An exec's command line as policy patterns match it and the command log shows it:
/// "NAME=value … command" (ActionRequest::environment first, space-separated); the command
/// alone when it sets no variables. For other kinds: ActionRequest::command.
inline QString commandWithEnvironment(const ActionRequest& request)
{
    if (request.kind != ActionKind::Exec || request.environment.isEmpty())
        return request.command;
    return request.environment.join(QLatin1Char(' ')) + QLatin1Char(' ') + request.command;
}

/// What an action acts on, as rows and lists show it: exec and run: commandWithEnvironment();
/// network: the request line ("CONNECT pypi.org:443"); browse: the step with its page
/// ("navigate https://…", "click e2 on https://…"); every other kind: the guest path (empty
/// for lifecycle actions).
inline QString actionSubject(const ActionRequest& request)
{
    if (request.kind == ActionKind::Exec || request.kind == ActionKind::Run)
        return commandWithEnvironment(request);
    if (request.kind == ActionKind::Network || request.kind == ActionKind::Browse)
        return request.command;
    return request.path;
}

/// An action approved as previewed already ran, in a fork its workspace then became
/// (ActionPreview::adopt): what it did there, which the asker gets instead of a second run.
struct PreviewedOutcome
{
    QString fork;            ///< the fork's name, for the row
    std::optional<int> exitStatus;
    std::optional<int> signal;
    QByteArray stdoutBytes;  ///< as far as the preview kept it
    QByteArray stderrBytes;
    qint64 wallMs = 0;
    FileChanges fileChanges; ///< what the action changed in the fork
};

/// What the gate decided about one ActionRequest.
struct GateDecision
{
    bool allowed = false;
    Approval approval = Approval::Auto; ///< Auto (policy allow/deny), Approved, Denied, TimedOut
    QString approver;                   ///< who decided when a person did; empty for Auto
    QString reason;                     ///< why it was denied; returned to the agent as is
    std::optional<ActionRequest> edited; ///< approved after editing: run this request instead
    /// Approved as previewed: the action ran in the preview's fork, which the workspace became;
    /// it must not run again.
    std::optional<PreviewedOutcome> previewed;
    /// Taken back before anyone decided (ActionWithdrawal, or the queue closing): the action
    /// never ran and its row says cancelled, with `reason`.
    bool withdrawn = false;
};

/// The one door every agent action passes: policy first, then (for `ask`) a person.
/// decide() never blocks; `done` is called exactly once, on the gate's thread, when the
/// action may run (allowed) or must not (denied, timed out, no approver, gate destroyed).
/// Nothing runs an action before `done` reports allowed.
class ActionGate : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(const GateDecision&)>;
    using QObject::QObject;
    ~ActionGate() override = default;

    virtual void decide(const ActionRequest& request, Done done) = 0;
};

} // namespace sbw
