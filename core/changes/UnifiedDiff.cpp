#include "changes/UnifiedDiff.h"

#include <QProcess>
#include <QTemporaryFile>

namespace sbw {

Expected<QByteArray> unifiedDiff(const QByteArray& before, const QByteArray& after, const QString& beforeLabel,
                                 const QString& afterLabel)
{
    QTemporaryFile beforeFile;
    QTemporaryFile afterFile;
    if (!beforeFile.open() || !afterFile.open() || beforeFile.write(before) != before.size()
        || afterFile.write(after) != after.size() || !beforeFile.flush() || !afterFile.flush())
        return makeError(QStringLiteral("cannot write temporary files for the diff"));
    QProcess diff;
    diff.start(QStringLiteral("diff"), {QStringLiteral("-u"), QStringLiteral("--text"), QStringLiteral("--label"),
                                         beforeLabel, QStringLiteral("--label"), afterLabel, beforeFile.fileName(),
                                         afterFile.fileName()});
    if (!diff.waitForFinished(30'000) || diff.exitStatus() != QProcess::NormalExit || diff.exitCode() > 1)
        return makeError(QStringLiteral("cannot run diff: %1").arg(diff.errorString()));
    return diff.readAllStandardOutput();
}

} // namespace sbw
