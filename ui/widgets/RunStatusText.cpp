#include "widgets/RunStatusText.h"

#include "base/SignalText.h"
#include "base/VisibleText.h"
#include "capacity/QueuePosition.h"

#include <QCoreApplication>

namespace sbw {
namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("sbw::RunStatusText", text);
}

} // namespace

QString phaseText(RunPhase phase)
{
    switch (phase) {
    case RunPhase::Connecting:
        return tr("Connecting…");
    case RunPhase::Queued:
        return tr("Waiting for a free microVM…");
    case RunPhase::Preparing:
        return tr("Preparing image…");
    case RunPhase::SavingState:
        return tr("Saving a ready microVM for this image (once)…");
    case RunPhase::Restoring:
        return tr("Restoring the saved microVM…");
    case RunPhase::Booting:
        return tr("Booting microVM…");
    case RunPhase::Running:
        return tr("Running…");
    case RunPhase::CleaningUp:
        return tr("Cleaning up…");
    case RunPhase::Finished:
        break;
    }
    return {};
}

QString queuedText(int ahead, int maxSandboxes)
{
    return tr("Waiting for a free microVM: %1…").arg(queuePositionText(ahead, maxSandboxes));
}

QString durationText(qint64 ms)
{
    if (ms < 1000)
        return tr("%1 ms").arg(ms);
    const double seconds = double(ms) / 1000.0;
    return tr("%1 s").arg(QString::number(seconds, 'f', seconds < 10.0 ? 2 : 1));
}

QString resultText(const RunResult& result)
{
    if (!result.error.isEmpty())
        return tr("Failed: %1").arg(makeVisible(result.error.trimmed()));
    if (result.cancelled)
        return tr("Cancelled");

    QString text;
    const bool limitNote = result.limit && !result.limitNote.isEmpty();
    if (limitNote) {
        // The note says which limit ended the script; the guest's own outcome follows when the
        // host did not end it (memory and disk limits).
        text = makeVisible(result.limitNote);
        text[0] = text[0].toUpper();
        if (result.limit == RunLimit::Memory || result.limit == RunLimit::Disk) {
            if (result.signal)
                text += tr(" · killed by signal %1").arg(signalText(*result.signal));
            else if (result.exitStatus)
                text += tr(" · exit status %1").arg(*result.exitStatus);
        }
    } else if (result.timedOut) {
        text = tr("Timed out after %1: script killed").arg(durationText(result.wallMs));
    } else if (result.signal) {
        text = tr("Killed by signal %1").arg(signalText(*result.signal));
    } else if (result.exitStatus) {
        text = tr("Finished: exit status %1").arg(*result.exitStatus);
    } else {
        text = tr("Finished without an exit status");
    }

    if (result.queuedMs > 0)
        text += tr(" · waited %1 for a free microVM").arg(durationText(result.queuedMs));
    if (result.preBooted)
        text += tr(" · pre-booted microVM resumed in %1").arg(durationText(result.bootMs));
    else if (result.restored)
        text += tr(" · restored from the saved microVM in %1").arg(durationText(result.bootMs));
    else if (result.bootMs > 0)
        text += tr(" · boot %1").arg(durationText(result.bootMs));
    if (!result.timedOut || limitNote)
        text += tr(" · script %1").arg(durationText(result.wallMs));
    return text;
}

ResultKind resultKind(const RunResult& result)
{
    if (!result.error.isEmpty())
        return ResultKind::Failure;
    if (!result.cancelled && !result.timedOut && !result.signal && !result.limit &&
        result.exitStatus == 0)
        return ResultKind::Success;
    return ResultKind::Warning;
}

} // namespace sbw
