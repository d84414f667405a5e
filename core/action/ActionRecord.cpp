#include "action/ActionRecord.h"

#include "base/VisibleText.h"

#include <array>
#include <utility>

namespace sbw {
namespace {

template <typename E, std::size_t N>
QString nameOf(const std::array<std::pair<E, const char*>, N>& names, E value)
{
    for (const auto& [candidate, name] : names) {
        if (candidate == value)
            return QLatin1String(name);
    }
    return {};
}

template <typename E, std::size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char*>, N>& names, const QString& name)
{
    for (const auto& [candidate, candidateName] : names) {
        if (name == QLatin1String(candidateName))
            return candidate;
    }
    return std::nullopt;
}

constexpr std::array<std::pair<Actor::Kind, const char*>, 5> kActorKinds{{
    {Actor::Kind::Person, "person"},
    {Actor::Kind::Agent, "agent"},
    {Actor::Kind::Cli, "cli"},
    {Actor::Kind::Workbench, "workbench"},
    {Actor::Kind::Guest, "guest"},
}};

constexpr std::array<std::pair<ActionKind, const char*>, 22> kActionKinds{{
    {ActionKind::Exec, "exec"},
    {ActionKind::Run, "run"},
    {ActionKind::FileWrite, "file-write"},
    {ActionKind::Upload, "upload"},
    {ActionKind::Download, "download"},
    {ActionKind::FileDelete, "file-delete"},
    {ActionKind::Create, "create"},
    {ActionKind::Start, "start"},
    {ActionKind::Stop, "stop"},
    {ActionKind::Pause, "pause"},
    {ActionKind::Resume, "resume"},
    {ActionKind::Hibernate, "hibernate"},
    {ActionKind::Wake, "wake"},
    {ActionKind::Checkpoint, "checkpoint"},
    {ActionKind::CheckpointDelete, "checkpoint-delete"},
    {ActionKind::Revert, "revert"},
    {ActionKind::Remove, "remove"},
    {ActionKind::Approval, "approval"},
    {ActionKind::List, "list"},
    {ActionKind::Network, "network"},
    {ActionKind::Browse, "browse"},
    {ActionKind::Fork, "fork"},
}};

constexpr std::array<std::pair<Outcome, const char*>, 8> kOutcomes{{
    {Outcome::Running, "running"},
    {Outcome::Succeeded, "succeeded"},
    {Outcome::Failed, "failed"},
    {Outcome::TimedOut, "timed-out"},
    {Outcome::Cancelled, "cancelled"},
    {Outcome::Denied, "denied"},
    {Outcome::Error, "error"},
    {Outcome::Interrupted, "interrupted"},
}};

constexpr std::array<std::pair<Approval, const char*>, 4> kApprovals{{
    {Approval::Auto, "auto"},
    {Approval::Approved, "approved"},
    {Approval::Denied, "denied"},
    {Approval::TimedOut, "timed-out"},
}};

} // namespace

QString Actor::kindName(Kind kind) { return nameOf(kActorKinds, kind); }
std::optional<Actor::Kind> Actor::kindFromName(const QString& name) { return valueOf(kActorKinds, name); }

QString Actor::display() const
{
    if (name.isEmpty())
        return kindName(kind);
    return QStringLiteral("%1 (%2)").arg(kindName(kind), name);
}

QString actionKindName(ActionKind kind) { return nameOf(kActionKinds, kind); }
std::optional<ActionKind> actionKindFromName(const QString& name) { return valueOf(kActionKinds, name); }

QList<ActionKind> allActionKinds()
{
    QList<ActionKind> kinds;
    for (const auto& [kind, name] : kActionKinds)
        kinds.append(kind);
    return kinds;
}
QString outcomeName(Outcome outcome) { return nameOf(kOutcomes, outcome); }
std::optional<Outcome> outcomeFromName(const QString& name) { return valueOf(kOutcomes, name); }
QString approvalName(Approval approval) { return nameOf(kApprovals, approval); }
std::optional<Approval> approvalFromName(const QString& name) { return valueOf(kApprovals, name); }

QString ActionRecord::approvalText() const
{
    QString text = approvalName(approval);
    if (!approver.isEmpty())
        text += QStringLiteral(" by ") + approver;
    if (kind == ActionKind::Approval && durationMs >= 0)
        text += QStringLiteral(" after %1 ms").arg(durationMs);
    return text;
}

QString ActionRecord::statusText() const
{
    switch (outcome) {
    case Outcome::Running:
        return QStringLiteral("running");
    case Outcome::Succeeded:
    case Outcome::Failed:
        if (signal)
            return QStringLiteral("signal %1").arg(*signal);
        if (exitStatus)
            return QStringLiteral("exit %1").arg(*exitStatus);
        return outcomeName(outcome);
    case Outcome::Denied:
    case Outcome::Error:
    case Outcome::TimedOut:
    case Outcome::Cancelled:
    case Outcome::Interrupted:
        if (error.isEmpty())
            return outcomeName(outcome);
        // "denied by policy rule 2 …" says it already: not "denied: denied by …".
        if (error.startsWith(outcomeName(outcome) + QLatin1Char(' ')))
            return oneLineVisible(error);
        return QStringLiteral("%1: %2").arg(outcomeName(outcome), oneLineVisible(error));
    }
    return {};
}

} // namespace sbw
