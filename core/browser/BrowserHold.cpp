#include "browser/BrowserHold.h"

#include "base/DataPaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <cerrno>
#include <csignal>

namespace sbw::browser_hold {
namespace {

QString holdPath(const QString& workspace)
{
    return paths::dataDir() + QStringLiteral("/browser/held/") + workspace;
}

struct Hold
{
    QString person;
    qint64 pid = 0;
};

/// The hold on record, if its process still runs.
std::optional<Hold> liveHold(const QString& workspace)
{
    QFile file(holdPath(workspace));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    const Hold hold{json.value(QStringLiteral("person")).toString(), json.value(QStringLiteral("pid")).toInteger()};
    // kill(pid, 0) fails with ESRCH only when no such process exists (EPERM: it runs as
    // another user, and still holds).
    if (hold.pid <= 0 || (::kill(pid_t(hold.pid), 0) != 0 && errno == ESRCH))
        return std::nullopt;
    return hold;
}

} // namespace

Expected<void> take(const QString& workspace, const QString& person)
{
    const qint64 self = QCoreApplication::applicationPid();
    if (const auto hold = liveHold(workspace); hold && hold->pid != self)
        return makeError(QStringLiteral("%1 already holds the browser of workspace '%2' in another window")
                             .arg(hold->person, workspace));
    if (!QDir().mkpath(QFileInfo(holdPath(workspace)).absolutePath()))
        return makeError(QStringLiteral("cannot make %1").arg(QFileInfo(holdPath(workspace)).absolutePath()));
    QSaveFile file(holdPath(workspace));
    const QByteArray json = QJsonDocument(QJsonObject{{QStringLiteral("person"), person}, {QStringLiteral("pid"), self}}).toJson();
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit())
        return makeError(QStringLiteral("cannot write %1: %2").arg(holdPath(workspace), file.errorString()));
    return {};
}

void release(const QString& workspace)
{
    if (const auto hold = liveHold(workspace); hold && hold->pid != QCoreApplication::applicationPid())
        return;
    QFile::remove(holdPath(workspace));
}

QString heldBy(const QString& workspace)
{
    const auto hold = liveHold(workspace);
    return hold ? hold->person : QString();
}

} // namespace sbw::browser_hold
