// The HTTP endpoint's checks (Host and Origin against DNS rebinding, bearer token) and the
// per-install token file, without a server.

#include "mcp/McpHttpAccess.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

class TestMcpHttpAccess : public QObject
{
    Q_OBJECT

    const QByteArray m_token = "0123456789abcdef0123456789abcdef";

private Q_SLOTS:
    void checks_data()
    {
        QTest::addColumn<QByteArray>("host");
        QTest::addColumn<QByteArray>("origin");
        QTest::addColumn<QByteArray>("authorization");
        QTest::addColumn<int>("status"); // 0: let through
        const QByteArray bearer = "Bearer " + m_token;
        QTest::newRow("127.0.0.1 with port") << QByteArray("127.0.0.1:8123") << QByteArray() << bearer << 0;
        QTest::newRow("localhost") << QByteArray("localhost") << QByteArray() << bearer << 0;
        QTest::newRow("LOCALHOST:80") << QByteArray("LOCALHOST:80") << QByteArray() << bearer << 0;
        QTest::newRow("[::1]:9") << QByteArray("[::1]:9") << QByteArray() << bearer << 0;
        QTest::newRow("local origin") << QByteArray("localhost:1") << QByteArray("http://localhost:3000") << bearer << 0;
        QTest::newRow("rebinding host") << QByteArray("evil.example:8123") << QByteArray() << bearer << 403;
        QTest::newRow("localhost as a subdomain") << QByteArray("localhost.evil.example") << QByteArray() << bearer << 403;
        QTest::newRow("no host") << QByteArray() << QByteArray() << bearer << 403;
        QTest::newRow("foreign origin") << QByteArray("127.0.0.1:1") << QByteArray("https://evil.example") << bearer << 403;
        QTest::newRow("origin null") << QByteArray("127.0.0.1:1") << QByteArray("null") << bearer << 403;
        QTest::newRow("origin with localhost userinfo") << QByteArray("127.0.0.1:1")
                                                        << QByteArray("http://localhost@evil.example") << bearer << 403;
        QTest::newRow("no token") << QByteArray("127.0.0.1:1") << QByteArray() << QByteArray() << 401;
        QTest::newRow("wrong token") << QByteArray("127.0.0.1:1") << QByteArray() << QByteArray("Bearer nope") << 401;
        QTest::newRow("token without Bearer") << QByteArray("127.0.0.1:1") << QByteArray() << m_token << 401;
        QTest::newRow("foreign origin before token") << QByteArray("127.0.0.1:1") << QByteArray("http://evil.example")
                                                     << QByteArray() << 403;
    }

    void checks()
    {
        QFETCH(QByteArray, host);
        QFETCH(QByteArray, origin);
        QFETCH(QByteArray, authorization);
        QFETCH(int, status);
        const auto refusal = sbw::checkMcpHttpAccess(host, origin, authorization, m_token);
        QCOMPARE(refusal ? refusal->status : 0, status);
        if (refusal)
            QVERIFY(!refusal->message.isEmpty());
    }

    void tokenIsMadeOnceWithMode0600()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/mcp-token"));
        const auto loaded = sbw::loadOrCreateMcpToken(path);
        QVERIFY2(loaded, loaded ? "" : qPrintable(loaded.error().message));
        const QByteArray token = loaded.value();
        QCOMPARE(token.size(), 64);
        QVERIFY(QByteArray::fromHex(token).toHex() == token);
        struct stat info = {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        const auto again = sbw::loadOrCreateMcpToken(path);
        QVERIFY(again);
        QCOMPARE(again.value(), token);
    }
};

QTEST_GUILESS_MAIN(TestMcpHttpAccess)
#include "tst_mcphttpaccess.moc"
