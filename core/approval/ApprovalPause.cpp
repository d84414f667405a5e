#include "approval/ApprovalPause.h"

#include "base/Async.h"
#include "log/LoggedAction.h"
#include "workspace/Workspace.h"

#include <QPointer>

namespace sbw {

ApprovalPause::ApprovalPause(HypervisorConnection* connection, std::shared_ptr<CommandLog> log, QObject* parent)
    : ApprovalPause(
          [connection](const QString& name) -> Expected<std::shared_ptr<sbw::Workspace>> {
              auto opened = sbw::Workspace::open(*connection, name);
              if (!opened)
                  return opened.error();
              return std::shared_ptr<sbw::Workspace>(std::move(opened.value()));
          },
          std::move(log), parent)
{
}

ApprovalPause::ApprovalPause(WorkspaceOpener open, std::shared_ptr<CommandLog> log, QObject* parent)
    : QObject(parent), m_open(std::move(open)), m_log(std::move(log))
{
    m_workers.setMaxThreadCount(2);
}

ApprovalPause::~ApprovalPause() = default;

void ApprovalPause::hold(const QString& name)
{
    Workspace& workspace = m_workspaces[name];
    if (++workspace.waiting == 1)
        add(name, {Step::Pause, {}});
}

void ApprovalPause::release(const QString& name, bool allowed, std::function<void()> then)
{
    const auto found = m_workspaces.find(name);
    if (found == m_workspaces.end() || found->second.waiting == 0) { // nothing held: nothing to resume
        if (then)
            then();
        return;
    }
    Workspace& workspace = found->second;
    --workspace.waiting;
    if (workspace.waiting == 0 || allowed) {
        add(name, {Step::Resume, std::move(then)});
        return;
    }
    if (then)
        then();
}

bool ApprovalPause::holdsPaused(const QString& name) const
{
    const auto found = m_workspaces.find(name);
    return found != m_workspaces.end() && found->second.ours;
}

void ApprovalPause::add(const QString& name, Job job)
{
    Workspace& workspace = m_workspaces[name];
    workspace.jobs.push_back(std::move(job));
    if (!workspace.busy)
        next(name);
}

void ApprovalPause::next(const QString& name)
{
    const auto found = m_workspaces.find(name);
    if (found == m_workspaces.end())
        return;
    Workspace& workspace = found->second;
    while (!workspace.jobs.empty()) {
        Job job = std::move(workspace.jobs.front());
        workspace.jobs.pop_front();
        // A pause nobody waits for any more, or of a workspace already ours; a resume of what
        // this object did not pause: nothing to do.
        const bool needed = job.step == Step::Pause ? workspace.waiting > 0 && !workspace.ours : workspace.ours;
        if (!needed) {
            if (job.then)
                job.then();
            continue;
        }
        workspace.busy = true;
        QPointer<ApprovalPause> self(this);
        const Step step = job.step;
        runThen(
            &m_workers, this, [this, name, step] { return perform(name, step); },
            [self, name, job = std::move(job)](bool done) {
                Workspace& workspace = self->m_workspaces[name];
                workspace.busy = false;
                if (job.step == Step::Pause) {
                    workspace.ours = done;
                    if (done)
                        Q_EMIT self->paused(name);
                } else {
                    workspace.ours = false;
                    if (done)
                        Q_EMIT self->resumed(name);
                }
                if (job.then)
                    job.then(); // may destroy this object
                if (self)
                    self->next(name);
            });
        return;
    }
    if (workspace.waiting == 0 && !workspace.ours)
        m_workspaces.erase(found);
}

bool ApprovalPause::perform(const QString& name, Step step) const
{
    auto opened = m_open(name);
    if (!opened)
        return false;
    sbw::Workspace& workspace = *opened.value();
    // Only a running workspace is paused, only a paused one resumed: a person may have
    // paused or resumed it in the meantime.
    const WorkspaceState state = workspace.state();
    if (step == Step::Pause ? !canPause(state) : !canResume(state))
        return false;
    ActionStart start;
    start.sandbox = name;
    start.actor = Actor{Actor::Kind::Workbench, kActorName};
    start.kind = step == Step::Pause ? ActionKind::Pause : ActionKind::Resume;
    LoggedAction row(m_log, start);
    const Expected<void> result = step == Step::Pause ? workspace.pause() : workspace.resume();
    row.finish(LoggedAction::endOf(result));
    return result.ok();
}

} // namespace sbw
