// `sbw log` on a command log in a temporary data folder ($XDG_DATA_HOME).

#include "CliProcess.h"
#include "CommandLogRows.h"
#include "log/CommandLog.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace sbw;

class TestCliLog : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;
    qint64 m_failed = 0;
    qint64 m_waitMs = 0; ///< the approval row's wait

    sbw::test::CliResult sbw(const QStringList& arguments)
    {
        return sbw::test::runCli(QStringLiteral(SBW_CLI_PATH), m_home.path(), QStringList{QStringLiteral("log")} + arguments);
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_DATA_HOME", m_home.path().toLocal8Bit());
        auto log = CommandLog::open(CommandLog::defaultPath()).value();
        ActionStart start;
        start.sandbox = QStringLiteral("ws1");
        start.actor = {Actor::Kind::Cli, {}};
        start.command = QStringLiteral("echo hi");
        sbw::test::logExec(*log, start, OutputStream::Stdout, "hi\n", 0);
        start.sandbox = QStringLiteral("ws2");
        start.actor = {Actor::Kind::Agent, QStringLiteral("bot")};
        start.command = QStringLiteral("printf '\\033[2J'; exit 4");
        m_failed = sbw::test::logExec(*log, start, OutputStream::Stderr, QByteArray("\x1b[2J\xff", 5), 4);
        // A person's decision after a wait of 1.5 s, asked by an agent with a long name.
        const qint64 decided = sbw::test::logApproval(
            *log, QStringLiteral("ws2"), {Actor::Kind::Agent, QStringLiteral("a-very-long-agent-client-name-from-somewhere")},
            1500);
        m_waitMs = log->row(decided).value().durationMs;
        QVERIFY(m_waitMs >= 1500 && m_waitMs < 1600);
    }

    void tableIsNewestFirstAndEscaped()
    {
        const sbw::test::CliResult r = sbw({});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines.size(), 5);
        QVERIFY(lines[0].startsWith("ID "));
        QVERIFY2(lines[2].contains("ws2") && lines[2].contains("agent (bot)") && lines[2].contains("exit 4"), lines[2]);
        QVERIFY2(lines[2].endsWith("printf '\\033[2J'; exit 4"), lines[2]);
        QVERIFY2(lines[3].contains("ws1") && lines[3].contains("cli") && lines[3].endsWith("echo hi"), lines[3]);
    }

    void tableColumnsStayAlignedWithLongNames()
    {
        const sbw::test::CliResult r = sbw({});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        // The actor column is capped at 28 characters: the long name ends in "…".
        QVERIFY2(lines[1].contains(QStringLiteral("agent (a-very-long-agent-cl…  ")), qPrintable(lines[1]));
        // Every column starts where its header does.
        for (const char* header : {"ACTION", "STATUS", "APPROVAL", "COMMAND"}) {
            const qsizetype at = lines[0].indexOf(QLatin1String(header));
            QVERIFY(at > 0);
            for (int i = 1; i < lines.size(); ++i)
                QVERIFY2(lines[i].at(at - 1) == QLatin1Char(' ') && lines[i].at(at - 2) == QLatin1Char(' ') &&
                             lines[i].at(at) != QLatin1Char(' '),
                         qPrintable(QStringLiteral("%1 in: %2").arg(QLatin1String(header), lines[i])));
        }
        const qsizetype action = lines[0].indexOf(QLatin1String("ACTION"));
        QCOMPARE(lines[1].mid(action, 8), QStringLiteral("approval"));
        QCOMPARE(lines[2].mid(action, 4), QStringLiteral("exec"));
        // The approval row gives the decision and the wait for it.
        const qsizetype approval = lines[0].indexOf(QLatin1String("APPROVAL"));
        QVERIFY2(lines[1].mid(approval).startsWith(
                     QStringLiteral("approved by alice after %1 ms  exec: make install").arg(m_waitMs)),
                 qPrintable(lines[1]));
        QVERIFY2(lines[2].mid(approval).startsWith(QStringLiteral("auto ")), qPrintable(lines[2]));
    }

    void filtersAndFormats()
    {
        sbw::test::CliResult r = sbw({QStringLiteral("--sandbox"), QStringLiteral("ws1"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.count('\n'), 1);
        QVERIFY(r.out.contains("\"command\":\"echo hi\""));
        r = sbw({QStringLiteral("--status"), QStringLiteral("failed"), QStringLiteral("--csv")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.count("\r\n"), 2);
        QVERIFY(r.out.contains(",ws2,agent,bot,exec,"));
    }

    void outputIsPrintedByteForByte()
    {
        const sbw::test::CliResult r = sbw({QStringLiteral("--output"), QString::number(m_failed), QStringLiteral("--stream"),
                              QStringLiteral("stderr")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("\x1b[2J\xff", 5));
    }

    // Runs last: it adds a row. A command of several lines shows them all in its one line.
    void multiLineCommandShowsEveryLine()
    {
        auto log = CommandLog::open(CommandLog::defaultPath()).value();
        ActionStart start;
        start.sandbox = QStringLiteral("ws3");
        start.actor = {Actor::Kind::Agent, QStringLiteral("bot")};
        start.command = QStringLiteral("ls\nrm -rf /root\necho done\n");
        sbw::test::logExec(*log, start, OutputStream::Stdout, "", 0);
        const sbw::test::CliResult r = sbw({QStringLiteral("--sandbox"), QStringLiteral("ws3")});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines.size(), 3); // header, the row, the final empty piece
        QVERIFY2(lines[1].endsWith("  ls⏎rm -rf /root⏎echo done⏎ (+2 lines)"), lines[1].constData());
    }

    // A cancelled command (killed by a signal) says cancelled and by whom, not the signal.
    void cancelledCommandSaysSo()
    {
        auto log = CommandLog::open(CommandLog::defaultPath()).value();
        ActionStart start;
        start.sandbox = QStringLiteral("ws4");
        start.actor = {Actor::Kind::Agent, QStringLiteral("bot")};
        start.command = QStringLiteral("sleep 100");
        const qint64 id = log->begin(start).value();
        ActionEnd end;
        end.outcome = Outcome::Cancelled;
        end.signal = 9;
        end.error = QStringLiteral("cancelled by the client (agent bot)");
        log->finish(id, end);
        const sbw::test::CliResult r = sbw({QStringLiteral("--sandbox"), QStringLiteral("ws4")});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[1].contains("  cancelled by the client…  "), lines[1].constData());
        QVERIFY2(!lines[1].contains("signal"), lines[1].constData());
    }

    void usageErrorsExitWithTwo()
    {
        for (const QStringList& arguments : {QStringList{QStringLiteral("--actor"), QStringLiteral("robot")},
                                             QStringList{QStringLiteral("--json"), QStringLiteral("--csv")},
                                             QStringList{QStringLiteral("--limit"), QStringLiteral("0")},
                                             QStringList{QStringLiteral("extra")}}) {
            const sbw::test::CliResult r = sbw(arguments);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.startsWith("sbw: ") && r.err.contains("sbw log --help"), r.err);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliLog)
#include "tst_clilog.moc"
