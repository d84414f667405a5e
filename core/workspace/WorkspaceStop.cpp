#include "workspace/WorkspaceStop.h"

#include "log/LoggedAction.h"

namespace sbw {
namespace {

QString requestText(const StopOutcome& outcome)
{
    if (!outcome.request && !outcome.forced)
        return QStringLiteral("it powered off before it was asked");
    if (!outcome.request)
        return outcome.unasked.isEmpty()
                   ? QStringLiteral("it could not be asked")
                   : QStringLiteral("it could not be asked: %1").arg(outcome.unasked);
    if (*outcome.request == StopRequest::GuestAgent)
        return QStringLiteral("asked through its guest agent");
    return outcome.synced ? QStringLiteral("asked over SSH after a sync")
                          : QStringLiteral("asked over SSH");
}

} // namespace

QString StopOutcome::summary() const
{
    if (!forced)
        return QStringLiteral("shut down cleanly in %1 s (%2)")
            .arg(QString::number(double(elapsedMs) / 1000.0, 'f', 1), requestText(*this));
    if (graceSeconds == 0 && !request) // --grace 0: the plug pulled on purpose
        return QStringLiteral("forced off at once (grace 0 s): the guest was not asked to shut "
                              "down; writes it had not flushed may be lost");
    QString text =
        QStringLiteral("forced off after %1 s: the guest did not shut down; ").arg(graceSeconds);
    text += synced ? QStringLiteral("writes made after its sync may be lost")
                   : QStringLiteral("writes it had not flushed may be lost");
    return text + QStringLiteral(" (%1)").arg(requestText(*this));
}

void finishStopAction(LoggedAction& action, const Expected<StopOutcome>& outcome)
{
    ActionEnd end;
    if (!outcome) {
        end.outcome = Outcome::Error;
        end.error = outcome.error().message;
    } else {
        const QString summary = outcome->summary();
        action.output(OutputStream::Stdout, (summary + QLatin1Char('\n')).toUtf8());
        if (outcome->forced) {
            end.outcome = Outcome::Failed;
            end.error = summary;
        }
    }
    action.finish(end);
}

} // namespace sbw
