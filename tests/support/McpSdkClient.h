#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

class QProcess;

namespace sbw::test {

/// Runs the MCP test client on the official TypeScript SDK (`clientDir`/client.mjs, installed by
/// packaging/setup.sh) with `config` (transport, command or url, …) and `steps`, and waits for
/// it (at most 15 minutes). Returns its JSON lines after the first (the server's info), one per
/// step; empty, with a warning naming what the client printed, when it failed.
QList<QJsonObject> runSdkClient(const QString& clientDir, QJsonObject config, const QJsonArray& steps);
/// As runSdkClient(), but waits with this thread's event loop running, for a server that this
/// thread serves (an McpHttpTransport of the test's own process).
QList<QJsonObject> runSdkClientServedHere(const QString& clientDir, QJsonObject config, const QJsonArray& steps);
/// Starts the same client in `node` without waiting, for a test that reads its lines as they
/// come (QProcess::readLine; the first is the server's info). Standard error is forwarded.
void startSdkClient(QProcess& node, const QString& clientDir, QJsonObject config, const QJsonArray& steps);

} // namespace sbw::test
