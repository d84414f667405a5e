#include "McpSdkClient.h"

#include <QJsonDocument>
#include <QProcess>
#include <QTest>
#include <QtGlobal>

namespace sbw::test {

void startSdkClient(QProcess& node, const QString& clientDir, QJsonObject config, const QJsonArray& steps)
{
    config.insert(QStringLiteral("steps"), steps);
    node.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    node.start(QStringLiteral("node"), {clientDir + QStringLiteral("/client.mjs"),
                                        QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact))});
}

namespace {

/// The client's JSON lines after the first, once `node` ended (`finished`: within the time).
QList<QJsonObject> clientLines(QProcess& node, bool finished)
{
    if (!finished || node.exitStatus() != QProcess::NormalExit || node.exitCode() != 0) {
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

} // namespace

QList<QJsonObject> runSdkClient(const QString& clientDir, QJsonObject config, const QJsonArray& steps)
{
    QProcess node;
    startSdkClient(node, clientDir, std::move(config), steps);
    return clientLines(node, node.waitForFinished(900000));
}

QList<QJsonObject> runSdkClientServedHere(const QString& clientDir, QJsonObject config, const QJsonArray& steps)
{
    QProcess node;
    startSdkClient(node, clientDir, std::move(config), steps);
    const bool finished = QTest::qWaitFor([&node] { return node.state() == QProcess::NotRunning; }, 900000);
    if (!finished) {
        node.kill();
        node.waitForFinished();
    }
    return clientLines(node, finished);
}

} // namespace sbw::test
