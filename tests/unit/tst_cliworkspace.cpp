// `sbw ws` on libvirt's test driver: every subcommand that takes a workspace name says the
// same line and exits with the same status when there is no workspace of that name.

#include "CliProcess.h"

#include <QTemporaryDir>
#include <QtTest>

class TestCliWorkspace : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;

    /// `sbw ws SUBCOMMAND --connect test:///default ARGS...` (the options before a `--` in ARGS).
    sbw::test::CliResult sbwWs(const QStringList& arguments)
    {
        return sbw::test::runCli(QStringLiteral(SBW_CLI_PATH), m_home.path(),
                                 QStringList{QStringLiteral("ws"), arguments.first(), QStringLiteral("--connect"),
                                             QStringLiteral("test:///default")} + arguments.mid(1));
    }

private Q_SLOTS:
    void unknownWorkspaceIsOneLineAndOneStatus_data()
    {
        QTest::addColumn<QStringList>("arguments");
        const QString name = QStringLiteral("ghost");
        QTest::newRow("start") << QStringList{QStringLiteral("start"), name};
        QTest::newRow("pause") << QStringList{QStringLiteral("pause"), name};
        QTest::newRow("stop") << QStringList{QStringLiteral("stop"), name};
        QTest::newRow("exec") << QStringList{QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("true")};
        QTest::newRow("checkpoint") << QStringList{QStringLiteral("checkpoint"), name, QStringLiteral("--list")};
        QTest::newRow("rm") << QStringList{QStringLiteral("rm"), name, QStringLiteral("--yes")};
        QTest::newRow("env list") << QStringList{QStringLiteral("env"), name, QStringLiteral("list")};
        QTest::newRow("env set") << QStringList{QStringLiteral("env"), name, QStringLiteral("set"), QStringLiteral("A=1")};
        QTest::newRow("env unset") << QStringList{QStringLiteral("env"), name, QStringLiteral("unset"), QStringLiteral("A")};
    }

    void unknownWorkspaceIsOneLineAndOneStatus()
    {
        QFETCH(QStringList, arguments);
        const sbw::test::CliResult r = sbwWs(arguments);
        QCOMPARE(r.err, QByteArray("sbw: error: no workspace named 'ghost'\n"));
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(r.exitCode, 125);
    }
};

QTEST_GUILESS_MAIN(TestCliWorkspace)
#include "tst_cliworkspace.moc"
