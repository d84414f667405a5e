#include "capacity/QueuePosition.h"

namespace sbw {

QString queuePositionText(int ahead, int maxSandboxes)
{
    const QString microVms =
        maxSandboxes == 1 ? QStringLiteral("the running microVM") : QStringLiteral("one of the %1 running microVMs").arg(maxSandboxes);
    if (ahead == 0)
        return QStringLiteral("next; waiting for %1 to end").arg(microVms);
    const QString runs = ahead == 1 ? QStringLiteral("1 run ahead") : QStringLiteral("%1 runs ahead").arg(ahead);
    return QStringLiteral("%1; at most %2 at once").arg(runs).arg(maxSandboxes);
}

} // namespace sbw
