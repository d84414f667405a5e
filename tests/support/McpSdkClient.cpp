#include "McpSdkClient.h"

#include <QJsonDocument>
#include <QProcess>
#include <QtGlobal>

namespace sbw::test {

void startSdkClient(QProcess& node, const QString& clientDir, QJsonObject config, const QJsonArray& steps)
{
    config.insert(QStringLiteral("steps"), steps);
    node.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    node.start(QStringLiteral("node"), {clientDir + QStringLiteral("/client.mjs"),
                                        QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact))});
}

QList<QJsonObject> runSdkClient(const QString& clientDir, QJsonObject config, const QJsonArray& steps)
{
    QProcess node;
    startSdkClient(node, clientDir, std::move(config), steps);
    if (!node.waitForFinished(900000) || node.exitCode() != 0) {
        qWarning("client failed: %s", node.readAllStandardOutput().constData());
        return {};
    }
    QList<QJsonObject> lines;
    for (const QByteArray& line : node.readAllStandardOutput().split('\n'))
        if (!line.isEmpty())
            lines.append(QJsonDocument::fromJson(line).object());
    if (!lines.isEmpty())
        lines.removeFirst();
    return lines;
}

} // namespace sbw::test
