// `sbw mcp` and `sbw serve` refuse a policy file given with --policy that is missing or
// unreadable: one line on stderr naming the file, exit status 125, nothing served.

#include "CliProcess.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

class TestCliMcp : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;

    sbw::test::CliResult sbw(const QStringList& arguments)
    {
        return sbw::test::runCli(QStringLiteral(SBW_CLI_PATH), m_home.path(), arguments);
    }

private Q_SLOTS:
    void badPolicyFileIsRefused_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("error");
        const QString missing = m_home.filePath(QStringLiteral("no-such-policy.json"));
        const QString folder = m_home.path(); // exists, cannot be read as a file
        const QStringList mcp{QStringLiteral("mcp")};
        const QStringList serve{QStringLiteral("serve"), QStringLiteral("--port"), QStringLiteral("0")};
        const QString notThere = QStringLiteral("sbw: error: the policy file %1 does not exist\n").arg(missing);
        QTest::newRow("mcp, missing") << mcp << missing << notThere;
        QTest::newRow("serve, missing") << serve << missing << notThere;
        QTest::newRow("mcp, a folder") << mcp << folder
                                       << QStringLiteral("sbw: error: cannot read the policy file %1: ").arg(folder);
        QTest::newRow("serve, a folder") << serve << folder
                                         << QStringLiteral("sbw: error: cannot read the policy file %1: ").arg(folder);
    }

    void badPolicyFileIsRefused()
    {
        QFETCH(QStringList, command);
        QFETCH(QString, file);
        QFETCH(QString, error);
        const sbw::test::CliResult r = sbw(command + QStringList{QStringLiteral("--policy"), file});
        QCOMPARE(r.exitCode, 125);
        QCOMPARE(r.out, QByteArray());
        QVERIFY2(QString::fromUtf8(r.err).startsWith(error), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        // Nothing was set up for serving: no bearer token was made.
        QVERIFY(!QFile::exists(m_home.filePath(QStringLiteral("sandbox-workbench/mcp-token"))));
    }
};

QTEST_GUILESS_MAIN(TestCliMcp)
#include "tst_climcp.moc"
