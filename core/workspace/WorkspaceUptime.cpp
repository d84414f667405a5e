#include "workspace/WorkspaceUptime.h"

#include "guest/GuestSession.h"
#include "workspace/Workspace.h"

#include <QString>

#include <cmath>
#include <mutex>

namespace sbw {
namespace {

/// A guest that has not answered by then is not waited for (the list shows its lower bound).
constexpr std::chrono::seconds kSessionDeadline{20};
constexpr std::chrono::seconds kCommandTimeout{10};
/// /proc/uptime is two numbers; more is not an uptime, and is not kept.
constexpr qsizetype kMaxAnswerBytes = 128;

} // namespace

std::optional<std::chrono::milliseconds> parseProcUptime(QByteArrayView text)
{
    const QList<QByteArray> fields = text.toByteArray().trimmed().split(' ');
    if (fields.size() != 2)
        return std::nullopt;
    bool ok = false;
    const double seconds = QString::fromLatin1(fields[0]).toDouble(&ok);
    // Up to 100 years; anything else (negative, NaN, inf) is not an uptime.
    if (!ok || !std::isfinite(seconds) || seconds < 0 || seconds > 100.0 * 365 * 86400)
        return std::nullopt;
    return std::chrono::milliseconds(std::llround(seconds * 1000));
}

Expected<std::chrono::steady_clock::time_point> readWorkspaceBoot(Workspace& workspace)
{
    auto session = workspace.borrowSession(std::chrono::steady_clock::now() + kSessionDeadline);
    if (!session)
        return session.error();
    std::mutex mutex;
    QByteArray answer;
    std::chrono::steady_clock::time_point answered;
    ExecRequest request;
    request.command = "exec cat /proc/uptime";
    request.timeout = kCommandTimeout;
    request.onStdout = [&](QByteArrayView bytes) {
        std::lock_guard lock(mutex);
        if (answer.isEmpty())
            answered = std::chrono::steady_clock::now();
        if (answer.size() < kMaxAnswerBytes)
            answer.append(bytes.first(std::min(bytes.size(), kMaxAnswerBytes - answer.size())));
    };
    auto status = session.value()->exec(request);
    if (!status)
        return status.error();
    if (status->exitStatus != 0)
        return makeError(QStringLiteral("the guest could not read /proc/uptime"));
    std::lock_guard lock(mutex);
    if (auto uptime = parseProcUptime(answer))
        return answered - *uptime;
    return makeError(QStringLiteral("the guest's /proc/uptime is not an uptime"));
}

} // namespace sbw
