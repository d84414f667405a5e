// Workbench, the composition root, built without widgets on libvirt's test driver: where its
// services keep their files, that an agent's action reaches its approval queue, and what it
// reports when a file it reads is broken.

#include "AgentRequests.h"
#include "approval/ApprovalQueue.h"
#include "approval/Policy.h"
#include "approval/PolicyGate.h"
#include "hypervisor/HypervisorConnection.h"
#include "log/CommandLog.h"
#include "mcp/McpHttpAccess.h"
#include "mcp/McpServer.h"
#include "workbench/Workbench.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace sbw;

class TestWorkbench : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;

private Q_SLOTS:
    void init()
    {
        // Every default path (log, policy, token) below a fresh folder.
        QVERIFY(m_home.isValid());
        for (const char* name : {"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"})
            qputenv(name, QDir(m_home.path()).filePath(QString::fromLatin1(name)).toUtf8());
    }

    void servicesKeepTheirFilesInTheDefaultPlaces()
    {
        HypervisorConnection connection(QStringLiteral("test:///default"));
        Workbench workbench(&connection);
        QVERIFY2(workbench.logOpened(), qPrintable(workbench.logOpened().error().message));
        QVERIFY(workbench.commandLog());
        QVERIFY(QFile::exists(CommandLog::defaultPath()));
        QVERIFY(workbench.policyLoaded()); // no policy file: the empty policy
        QVERIFY(workbench.tokenLoaded());
        QCOMPARE(workbench.mcpToken().size(), 64);
        struct stat info = {};
        QCOMPARE(::stat(QFile::encodeName(defaultMcpTokenPath()).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QStringList tools;
        for (const McpTool& tool : workbench.mcpServer()->tools())
            tools << tool.name;
        QVERIFY2(tools.contains(QStringLiteral("exec")) && tools.contains(QStringLiteral("run_code")),
                 qPrintable(tools.join(QLatin1Char(' '))));
    }

    void anAgentActionWithoutARuleWaitsInTheQueue()
    {
        HypervisorConnection connection(QStringLiteral("test:///default"));
        Workbench workbench(&connection);
        std::optional<GateDecision> decided;
        workbench.gate()->decide(test::agentExec(QStringLiteral("ls")),
                                 [&](const GateDecision& decision) { decided = decision; });
        const QList<PendingApproval> pending = workbench.approvals()->pending();
        QCOMPARE(pending.size(), 1);
        QCOMPARE(pending.first().request.command, QStringLiteral("ls"));
        QVERIFY(!decided);
        QVERIFY(workbench.approvals()->deny(pending.first().id, QStringLiteral("tester"), QString()));
        QTRY_VERIFY(decided);
        QVERIFY(!decided->allowed);
        QCOMPARE(decided->approval, Approval::Denied);
    }

    void aBrokenPolicyIsReportedAndEverythingIsAsked()
    {
        QVERIFY(QDir().mkpath(QFileInfo(Policy::defaultPath()).absolutePath()));
        QFile file(Policy::defaultPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{ not json");
        file.close();
        HypervisorConnection connection(QStringLiteral("test:///default"));
        Workbench workbench(&connection);
        QVERIFY(!workbench.policyLoaded());
        QVERIFY2(workbench.policyLoaded().error().message.contains(Policy::defaultPath()),
                 qPrintable(workbench.policyLoaded().error().message));
        workbench.gate()->decide(test::agentExec(QStringLiteral("ls")), [](const GateDecision&) {});
        QCOMPARE(workbench.approvals()->pending().size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestWorkbench)
#include "tst_workbench.moc"
