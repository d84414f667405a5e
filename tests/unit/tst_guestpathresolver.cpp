// normalisedGuestPath(): the lexical normalisation that checks the guest's answer to
// resolveGuestPath() (which tst_mcp runs against a real guest).

#include "guest/GuestPathResolver.h"

#include <QTest>

class TestGuestPathResolver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void normalises_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("normal");
        QTest::newRow("plain") << "/root/a.txt"
                               << "/root/a.txt";
        QTest::newRow("dots and slashes") << "//root/./d/../a.txt/"
                                          << "/root/a.txt";
        QTest::newRow("above the root") << "/../../etc/x"
                                        << "/etc/x";
        QTest::newRow("root") << "/"
                              << "/";
        QTest::newRow("only dots") << "/./.."
                                   << "/";
        QTest::newRow("dotted names stay") << "/root/..a/.b"
                                           << "/root/..a/.b";
    }

    void normalises()
    {
        QFETCH(QString, path);
        QFETCH(QString, normal);
        const auto result = sbw::normalisedGuestPath(path);
        QVERIFY(result.ok());
        QCOMPARE(result.value(), normal);
    }

    void refusesRelativeAndNul()
    {
        QCOMPARE(sbw::normalisedGuestPath(QStringLiteral("root/a")).error().message,
                 QStringLiteral("root/a is not an absolute guest path (starting with /)"));
        QCOMPARE(sbw::normalisedGuestPath(QStringLiteral("/root/a") + QChar(0)).error().message,
                 QStringLiteral("a guest path cannot hold a NUL character"));
    }
};

QTEST_GUILESS_MAIN(TestGuestPathResolver)
#include "tst_guestpathresolver.moc"
