#pragma once

#include "base/Expected.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <deque>
#include <functional>
#include <map>
#include <memory>

namespace sbw {

class CommandLog;
class HypervisorConnection;
class Workspace;

/// Pauses a workspace while actions for it wait for a person (the policy's pauseWhileWaiting,
/// see Policy::pausesWhileWaiting()); PolicyGate calls hold() when such an action starts
/// waiting and release() when it is decided.
///
/// - The first waiting action of a running workspace pauses it (Workspace::pause()). A
///   workspace that is not running (paused by a person, stopped, hibernated) is left alone.
/// - The pause ends when the last waiting action of the workspace is decided (approved,
///   denied, timed out, withdrawn), or earlier when one of them is approved, since an approved
///   action runs in a running guest. release() calls its `then` after the resume, so the
///   decision reaches the caller (and an approved action starts) only then.
/// - Only what this object paused is resumed, and only while it is still paused: a workspace
///   a person paused stays paused, one a person resumed meanwhile is not touched.
/// - A pause also freezes commands already running in the workspace (their host-side timeouts
///   go on counting).
///
/// Every pause and resume is a command-log row of kind pause or resume with the actor
/// Actor::Kind::Workbench named kActorName ("workbench (approval queue)").
///
/// Pauses and resumes of one workspace run one after another on this object's worker threads
/// (libvirt calls block); hold(), release() and the `then` callbacks run on this object's
/// thread (the gate's). A failed pause or resume is an error row; a workspace that cannot be
/// opened (there is none of that name) is left alone; neither holds a decision back.
class ApprovalPause : public QObject
{
    Q_OBJECT

public:
    static inline const QString kActorName = QStringLiteral("approval queue");

    /// Opens a workspace by the name actions give it; called on this object's worker threads.
    using WorkspaceOpener = std::function<Expected<std::shared_ptr<sbw::Workspace>>(const QString& name)>;

    /// Workspaces are opened on `connection` (not owned; must outlive this object) by name.
    /// `log` may be null (nothing is logged).
    ApprovalPause(HypervisorConnection* connection, std::shared_ptr<CommandLog> log, QObject* parent = nullptr);
    /// Workspaces are opened by `open` (the workbench's: on whichever host has the name).
    ApprovalPause(WorkspaceOpener open, std::shared_ptr<CommandLog> log, QObject* parent = nullptr);
    ~ApprovalPause() override;

    /// An action for workspace `name` started waiting.
    void hold(const QString& name);
    /// An action for workspace `name` that hold() announced was decided (`allowed`: approved);
    /// `then` runs once the workspace is resumed when that is due, else at once.
    void release(const QString& name, bool allowed, std::function<void()> then);

    /// Whether this object paused workspace `name` and has not resumed it yet.
    bool holdsPaused(const QString& name) const;

Q_SIGNALS:
    /// This object paused workspace `name` (after virDomainSuspend returned).
    void paused(const QString& name);
    /// This object resumed workspace `name`.
    void resumed(const QString& name);

private:
    enum class Step
    {
        Pause,
        Resume
    };
    struct Job
    {
        Step step;
        std::function<void()> then;
    };
    struct Workspace
    {
        int waiting = 0;      ///< actions held and not yet released
        bool ours = false;    ///< paused by this object, not resumed since
        bool busy = false;    ///< a job runs on a worker
        std::deque<Job> jobs; ///< after the running one
    };

    void add(const QString& name, Job job);
    void next(const QString& name);
    /// Runs on a worker: the pause or resume with its log row; whether the workspace is now
    /// paused by us (Pause) or was resumed (Resume).
    bool perform(const QString& name, Step step) const;

    WorkspaceOpener m_open;
    std::shared_ptr<CommandLog> m_log;
    std::map<QString, Workspace> m_workspaces;
    QThreadPool m_workers; ///< last member: destroyed (and waited for) first
};

} // namespace sbw
