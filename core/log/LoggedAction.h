#pragma once

#include "guest/GuestSession.h"
#include "log/CommandLog.h"

#include <memory>

namespace sbw {

/// One action's row in the command log, from construction (CommandLog::begin) to finish().
/// An action destroyed unfinished ends as Outcome::Error ("the workbench abandoned the
/// action"), so no row stays running. A null log makes every call a no-op: callers that run
/// without a log need no checks. A log that cannot be written is reported once as a warning
/// (category sbw.log) and never stops the action itself.
class LoggedAction
{
public:
    LoggedAction(std::shared_ptr<CommandLog> log, const ActionStart& start);
    ~LoggedAction();

    LoggedAction(const LoggedAction&) = delete;
    LoggedAction& operator=(const LoggedAction&) = delete;

    /// Output of the action, from any thread.
    void output(OutputStream stream, QByteArrayView bytes);
    /// Completes the row. Later calls do nothing.
    void finish(const ActionEnd& end);
    /// The row's id in the log (`sbw log --output ID`), also after finish(); 0 when not logged.
    qint64 id() const { return m_rowId; }

    /// How an exec ended, as a row's end: Error with the message, TimedOut, Cancelled, Failed
    /// (non-zero status or a signal) or Succeeded.
    static ActionEnd endOf(const Expected<ExecStatus>& status);
    /// Succeeded, or Error with the message.
    static ActionEnd endOf(const Expected<void>& result);

private:
    std::shared_ptr<CommandLog> m_log;
    qint64 m_id = 0;    ///< 0: not logged, or finished
    qint64 m_rowId = 0; ///< 0: not logged
};

} // namespace sbw
