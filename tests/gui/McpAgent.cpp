#include "McpAgent.h"

#include "agents/AgentsPane.h"
#include "window/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTcpServer>

namespace sbw::test {

McpAgent::McpAgent(const QJsonObject& server, const QString& tool, const QJsonObject& arguments)
{
    QJsonObject config = server;
    config.insert(QStringLiteral("steps"),
                  QJsonArray{QJsonObject{{QStringLiteral("call"), tool}, {QStringLiteral("arguments"), arguments}}});
    m_node.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QObject::connect(&m_node, &QProcess::readyReadStandardOutput, [this] {
        m_out += m_node.readAllStandardOutput();
        for (qsizetype end; (end = m_out.indexOf('\n')) >= 0; m_out.remove(0, end + 1))
            m_lines.append(QJsonDocument::fromJson(m_out.left(end)).object());
    });
    m_node.start(QStringLiteral("node"), {QStringLiteral(SBW_MCP_CLIENT_DIR "/client.mjs"),
                                         QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact))});
}

McpAgent::~McpAgent()
{
    if (m_node.state() != QProcess::NotRunning) {
        m_node.kill();
        m_node.waitForFinished(5000);
    }
}

QString mcpResultText(const QJsonObject& result)
{
    return result.value(QLatin1String("content")).toArray().at(0).toObject().value(QLatin1String("text")).toString();
}

bool mcpClientInstalled()
{
    return QFile::exists(QStringLiteral(SBW_MCP_CLIENT_DIR "/node_modules/@modelcontextprotocol/sdk/package.json"));
}

QJsonObject startAgentsServer(MainWindow& window)
{
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("agentsDock"));
    if (!dock)
        return {};
    if (!dock->isVisible())
        dock->toggleViewAction()->trigger(); // View ▸ Agents
    AgentsPane* agents = window.agentsPane();
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    agents->portBox()->setValue(probe.serverPort());
    probe.close();
    agents->startButton()->click();
    if (!agents->serverAction()->isChecked()
        || agents->statusLabel()->text() != QStringLiteral("serving http://127.0.0.1:%1/mcp").arg(agents->portBox()->value()))
        return {};
    agents->copySnippetButton()->click();
    const QJsonObject entry = QJsonDocument::fromJson(QApplication::clipboard()->text().toUtf8())
                                  .object().value(QLatin1String("mcpServers")).toObject()
                                  .value(QLatin1String("sandbox-workbench")).toObject();
    const QString bearer = entry.value(QLatin1String("headers")).toObject().value(QLatin1String("Authorization")).toString();
    if (!bearer.startsWith(QLatin1String("Bearer ")) || bearer.size() <= 20)
        return {};
    return {{QStringLiteral("transport"), QStringLiteral("http")},
            {QStringLiteral("url"), entry.value(QLatin1String("url")).toString()},
            {QStringLiteral("token"), bearer.mid(7)}};
}

} // namespace sbw::test
