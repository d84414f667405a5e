#include "log/LoggedAction.h"

#include "base/Logging.h"

namespace sbw {

LoggedAction::LoggedAction(std::shared_ptr<CommandLog> log, const ActionStart& start) : m_log(std::move(log))
{
    if (!m_log)
        return;
    if (auto id = m_log->begin(start))
        m_id = m_rowId = id.value();
    else
        qCWarning(lcLog) << "cannot log an action:" << id.error().message;
}

LoggedAction::~LoggedAction()
{
    ActionEnd abandoned;
    abandoned.outcome = Outcome::Error;
    abandoned.error = QStringLiteral("the workbench abandoned the action");
    finish(abandoned);
}

void LoggedAction::output(OutputStream stream, QByteArrayView bytes)
{
    if (m_id)
        m_log->appendOutput(m_id, stream, bytes);
}

void LoggedAction::finish(const ActionEnd& end)
{
    if (!m_id)
        return;
    if (auto done = m_log->finish(std::exchange(m_id, 0), end); !done)
        qCWarning(lcLog) << "cannot complete a command log row:" << done.error().message;
}

ActionEnd LoggedAction::endOf(const Expected<ExecStatus>& status)
{
    ActionEnd end;
    if (!status) {
        end.outcome = Outcome::Error;
        end.error = status.error().message;
        return end;
    }
    end.exitStatus = status->exitStatus;
    end.signal = status->signal;
    if (status->timedOut)
        end.outcome = Outcome::TimedOut;
    else if (status->cancelled)
        end.outcome = Outcome::Cancelled;
    else if (status->signal || status->exitStatus.value_or(-1) != 0)
        end.outcome = Outcome::Failed;
    else
        end.outcome = Outcome::Succeeded;
    return end;
}

ActionEnd LoggedAction::endOf(const Expected<void>& result)
{
    ActionEnd end;
    if (!result) {
        end.outcome = Outcome::Error;
        end.error = result.error().message;
    }
    return end;
}

} // namespace sbw
