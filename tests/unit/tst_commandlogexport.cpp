#include "log/CommandLogExport.h"

#include <QtTest>

using namespace sbw;

class TestCommandLogExport : public QObject
{
    Q_OBJECT

    static ActionRecord sample()
    {
        ActionRecord r;
        r.id = 7;
        r.started = QDateTime(QDate(2026, 11, 29), QTime(16, 30, 1, 250), Qt::UTC);
        r.ended = r.started.addMSecs(1500);
        r.sandbox = QStringLiteral("ws1");
        r.actor = {Actor::Kind::Agent, QStringLiteral("claude-code")};
        r.kind = ActionKind::Exec;
        r.command = QStringLiteral("echo \"a,b\"\nprintf '\\x1b[2J'");
        r.workdir = QStringLiteral("/root");
        r.exitStatus = 0;
        r.outcome = Outcome::Succeeded;
        r.durationMs = 1500;
        r.stdoutBytes = 4;
        r.approval = Approval::Approved;
        r.approver = QStringLiteral("person");
        r.artifactsDir = QStringLiteral("/data/runs/r1/out");
        return r;
    }

private Q_SLOTS:
    void jsonLinesHaveOneObjectPerLine()
    {
        ActionRecord running = sample();
        running.id = 8;
        running.ended = {};
        running.exitStatus.reset();
        running.durationMs = -1;
        running.outcome = Outcome::Running;
        const QByteArray lines = toJsonLines({sample(), running});
        const QList<QByteArray> split = lines.split('\n');
        QCOMPARE(split.size(), 3);
        QCOMPARE(split[2], QByteArray());
        QCOMPARE(split[0],
                 QByteArray("{\"action\":\"exec\",\"actor\":\"agent\",\"actor_name\":\"claude-code\",\"approval\":\"approved\","
                            "\"approver\":\"person\",\"bytes_received\":0,\"bytes_sent\":0,\"command\":\"echo \\\"a,b\\\"\\nprintf '\\\\x1b[2J'\",\"duration_ms\":1500,"
                            "\"ended\":\"2026-11-29T16:30:02.750Z\",\"error\":\"\",\"exit_status\":0,"
                            "\"file_changes\":{\"created\":0,\"deleted\":0,\"files\":[],\"folders\":[],\"modified\":0,"
                            "\"not_listed\":0,\"state\":\"not tracked\",\"summary\":\"\",\"unknown\":\"\"},"
                            "\"file_changes_summary\":\"\",\"files\":\"/data/runs/r1/out\",\"id\":7,\"network_address\":\"\",\"outcome\":\"succeeded\","
                            "\"sandbox\":\"ws1\",\"signal\":null,\"started\":\"2026-11-29T16:30:01.250Z\",\"stderr_bytes\":0,"
                            "\"stderr_capped\":false,\"stdout_bytes\":4,\"stdout_capped\":false,\"url_after\":\"\",\"url_before\":\"\","
                            "\"workdir\":\"/root\"}"));
        QVERIFY(split[1].contains("\"ended\":null"));
        QVERIFY(split[1].contains("\"duration_ms\":null"));
        QVERIFY(split[1].contains("\"exit_status\":null"));
    }

    void csvQuotesAndDisarmsFormulas()
    {
        ActionRecord formula = sample();
        formula.command = QStringLiteral("=HYPERLINK(\"http://x\")");
        formula.sandbox = QStringLiteral("-ws");
        const QString csv = QString::fromUtf8(toCsv({sample(), formula}));
        const QStringList lines = csv.split(QStringLiteral("\r\n"));
        QCOMPARE(lines[0], QStringLiteral("id,started,ended,sandbox,actor,actor_name,action,command,workdir,"
                                          "exit_status,signal,outcome,error,duration_ms,stdout_bytes,"
                                          "stderr_bytes,stdout_capped,stderr_capped,approval,approver,"
                                          "network_address,bytes_sent,bytes_received,url_before,url_after,files,"
                                          "file_changes_summary"));
        QCOMPARE(lines[1], QStringLiteral("7,2026-11-29T16:30:01.250Z,2026-11-29T16:30:02.750Z,ws1,agent,"
                                          "claude-code,exec,\"echo \"\"a,b\"\"\nprintf '\\x1b[2J'\",/root,0,,"
                                          "succeeded,,1500,4,0,false,false,approved,person,,0,0,,,/data/runs/r1/out,")
                               .split(QStringLiteral("\r\n"))[0]);
        QVERIFY(csv.contains(QStringLiteral("\"'-ws\"")));
        QVERIFY(csv.contains(QStringLiteral("\"'=HYPERLINK(\"\"http://x\"\")\"")));
        QVERIFY(csv.endsWith(QStringLiteral("\r\n")));
    }
};

QTEST_GUILESS_MAIN(TestCommandLogExport)
#include "tst_commandlogexport.moc"
