// The Agents dock: connected clients appear with name and version, Disconnect ends the
// selected session, the client snippet carries the URL and token (masked on the screen, whole
// on the clipboard), the server starts and stops.

#include "action/ActionGate.h"
#include "agents/AgentsPane.h"
#include "mcp/McpHttpTransport.h"
#include "mcp/McpServer.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTcpServer>
#include <QTest>

namespace {

class AllowGate : public sbw::ActionGate
{
public:
    void decide(const sbw::ActionRequest&, Done done) override { done(sbw::GateDecision{true, {}, {}, {}, {}}); }
};

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

class TestAgentsPane : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsAndDisconnectsClients()
    {
        AllowGate gate;
        sbw::McpServer server(&gate, nullptr);
        sbw::McpHttpTransport transport(&server, "t0k3n");
        sbw::AgentsPane pane(&server, &transport, "t0k3n");
        QCOMPARE(pane.clientTable()->rowCount(), 0);

        const QString session = server.openSession(QStringLiteral("http"));
        server.handle(session,
                      QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), 1},
                                  {QStringLiteral("method"), QStringLiteral("initialize")},
                                  {QStringLiteral("params"),
                                   QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                               {QStringLiteral("clientInfo"),
                                                QJsonObject{{QStringLiteral("name"), QStringLiteral("claude\x1b[2Jcode")},
                                                            {QStringLiteral("version"), QStringLiteral("2.0")}}}}}},
                      [](const QJsonObject&) {});
        QCOMPARE(pane.clientTable()->rowCount(), 1);
        QCOMPARE(pane.clientTable()->item(0, 0)->text(), QStringLiteral("claude\\x1b[2Jcode"));
        QCOMPARE(pane.clientTable()->item(0, 1)->text(), QStringLiteral("2.0"));
        QCOMPARE(pane.clientTable()->item(0, 2)->text(), QStringLiteral("http"));
        QVERIFY(!pane.disconnectButton()->isEnabled());
        pane.clientTable()->selectRow(0);
        QVERIFY(pane.disconnectButton()->isEnabled());
        pane.disconnectButton()->click();
        QVERIFY(!server.hasSession(session));
        QCOMPARE(pane.clientTable()->rowCount(), 0);
    }

    void startsStopsAndShowsTheSnippet()
    {
        AllowGate gate;
        sbw::McpServer server(&gate, nullptr);
        sbw::McpHttpTransport transport(&server, "t0k3n");
        sbw::AgentsPane pane(&server, &transport, "t0k3n");
        const quint16 port = freePort();
        pane.portBox()->setValue(port);
        const QJsonObject config = QJsonDocument::fromJson(pane.clientSnippet().toUtf8()).object();
        const QJsonObject entry = config.value(QLatin1String("mcpServers")).toObject().value(QLatin1String("sandbox-workbench")).toObject();
        QCOMPARE(entry.value(QLatin1String("url")).toString(), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
        QCOMPARE(entry.value(QLatin1String("headers")).toObject().value(QLatin1String("Authorization")).toString(),
                 QStringLiteral("Bearer t0k3n"));
        // The token is masked on the screen; the snippet's Copy button gives the real one.
        QCOMPARE(pane.snippetView()->toPlainText(), pane.shownSnippet());
        QVERIFY2(pane.snippetView()->toPlainText().contains(QLatin1String("\"Authorization\": \"Bearer <token>\"")),
                 qPrintable(pane.snippetView()->toPlainText()));
        QVERIFY(!pane.snippetView()->toPlainText().contains(QLatin1String("t0k3n")));
        QApplication::clipboard()->clear();
        pane.copySnippetButton()->click();
        QCOMPARE(QApplication::clipboard()->text(), pane.clientSnippet());
        QVERIFY(QApplication::clipboard()->text().contains(QLatin1String("\"Authorization\": \"Bearer t0k3n\"")));

        pane.serverAction()->trigger();
        QVERIFY(transport.isListening());
        QCOMPARE(transport.port(), port);
        QVERIFY(!pane.portBox()->isEnabled());
        pane.serverAction()->trigger();
        QVERIFY(!transport.isListening());
        QVERIFY(pane.portBox()->isEnabled());
    }

    void portInUseSaysSoAndStaysStopped()
    {
        AllowGate gate;
        sbw::McpServer server(&gate, nullptr);
        sbw::McpHttpTransport transport(&server, "t0k3n");
        sbw::AgentsPane pane(&server, &transport, "t0k3n");
        QTcpServer busy;
        QVERIFY(busy.listen(QHostAddress::LocalHost, 0));
        pane.portBox()->setValue(busy.serverPort());
        pane.startButton()->click();
        QVERIFY(!transport.isListening());
        QVERIFY(!pane.serverAction()->isChecked());
        QCOMPARE(pane.startButton()->text(), QStringLiteral("Start"));
        QVERIFY2(pane.statusLabel()->text().contains(QString::number(busy.serverPort())), qPrintable(pane.statusLabel()->text()));
        QVERIFY(pane.statusLabel()->wordWrap()); // a long message wraps instead of widening the dock
    }
};

QTEST_MAIN(TestAgentsPane)
#include "tst_agentspane.moc"
