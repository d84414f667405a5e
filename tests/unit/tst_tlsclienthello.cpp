// readClientHelloSni(): ClientHellos recorded from real clients (data/clienthello/README.md), cut
// and refragmented, and synthetic ones whose lengths lie.

#include "network/TlsClientHello.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace sbw;
using Status = ClientHelloSni::Status;

namespace {

QByteArray number(quint32 value, int width)
{
    QByteArray bytes;
    for (int shift = (width - 1) * 8; shift >= 0; shift -= 8)
        bytes.append(char(value >> shift & 0xff));
    return bytes;
}
QByteArray vector16(const QByteArray& data)
{
    return number(quint32(data.size()), 2) + data;
}

/// A server_name extension with one host_name entry per name.
QByteArray serverNameExtension(const QList<QByteArray>& names)
{
    QByteArray list;
    for (const QByteArray& name : names)
        list += number(0, 1) + vector16(name);
    return number(0, 2) + vector16(vector16(list));
}

/// A TLS 1.3-shaped ClientHello handshake message (header included) with `extensions`.
QByteArray clientHello(const QByteArray& extensions)
{
    QByteArray body = number(0x0303, 2) + QByteArray(32, '\x11');
    body += number(32, 1) + QByteArray(32, '\x22');          // legacy_session_id
    body += vector16(number(0x1301, 2) + number(0x1302, 2)); // cipher_suites
    body += number(1, 1) + number(0, 1);                     // compression: null
    body += vector16(number(0x002b, 2) + vector16(number(2, 1) + number(0x0304, 2)) +
                     extensions); // supported_versions first
    return number(1, 1) + number(quint32(body.size()), 3) + body;
}

/// `handshake` in handshake records of the given sizes (the last takes what is left).
QByteArray inRecords(const QByteArray& handshake, const QList<qsizetype>& sizes = {})
{
    QByteArray records;
    qsizetype pos = 0;
    for (qsizetype i = 0; pos < handshake.size(); ++i) {
        const qsizetype size = i < sizes.size() ? sizes[i] : handshake.size() - pos;
        records += number(0x160301, 3) + vector16(handshake.mid(pos, size));
        pos += size;
    }
    return records;
}

QByteArray recorded(const QString& name)
{
    QFile file(QStringLiteral(SBW_CLIENTHELLO_DIR "/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    return file.readAll();
}

/// The handshake bytes of a recorded hello that came in one record.
QByteArray handshakeOf(const QByteArray& records)
{
    return records.mid(5);
}

} // namespace

class TestTlsClientHello : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recordedHellos_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<Status>("status");
        QTest::addColumn<QString>("serverName");
        const auto row = [](const char* file, Status status, const char* name = "") {
            QTest::newRow(file) << QString::fromLatin1(file) << status << QString::fromLatin1(name);
        };
        row("curl-example.org", Status::Found, "example.org");
        row("node-registry.npmjs.org", Status::Found, "registry.npmjs.org");
        row("openssl-example.org", Status::Found, "example.org");
        row("openssl-tls12-pypi.org", Status::Found, "pypi.org");
        row("python-files.pythonhosted.org", Status::Found, "files.pythonhosted.org");
        row("openssl-noservername", Status::Absent);
        row("python-ip-literal", Status::Absent); // Python leaves SNI out for an address
        row("openssl-servername-ip-literal", Status::Malformed); // s_client sends what it is told
    }
    void recordedHellos()
    {
        QFETCH(QString, file);
        QFETCH(Status, status);
        QFETCH(QString, serverName);
        const QByteArray hello = recorded(file);
        QCOMPARE(readClientHelloSni(hello), (ClientHelloSni{status, serverName}));
        for (qsizetype size = 0; size < hello.size(); ++size) {
            if (readClientHelloSni(QByteArrayView(hello).first(size)).status != Status::Incomplete)
                QFAIL(
                    qPrintable(QStringLiteral("the first %1 bytes are not Incomplete").arg(size)));
        }
        // What a client sends after its ClientHello (a TLS 1.3 change_cipher_spec, early data)
        // is not read.
        QCOMPARE(readClientHelloSni(hello + QByteArray::fromHex("140303000101")),
                 (ClientHelloSni{status, serverName}));
        // The same handshake message fragmented over records at every point.
        const QByteArray handshake = handshakeOf(hello);
        for (qsizetype cut = 1; cut < handshake.size(); ++cut) {
            if (readClientHelloSni(inRecords(handshake, {cut})) !=
                ClientHelloSni{status, serverName})
                QFAIL(qPrintable(QStringLiteral("split after %1 bytes").arg(cut)));
        }
        QCOMPARE(readClientHelloSni(inRecords(handshake, {1, 1, 1, 1, 1, 100})),
                 (ClientHelloSni{status, serverName}));
    }

    void syntheticHello()
    {
        const QByteArray hello = clientHello(serverNameExtension({"Example.ORG"}));
        QCOMPARE(readClientHelloSni(inRecords(hello)),
                 (ClientHelloSni{Status::Found, QStringLiteral("example.org")}));
        QCOMPARE(readClientHelloSni(inRecords(clientHello({}))).status, Status::Absent);
    }

    void otherProtocolsAreNotTls()
    {
        QCOMPARE(readClientHelloSni("GET / HTTP/1.1\r\n").status, Status::NotTls);
        QCOMPARE(readClientHelloSni("CONNECT pypi.org:443 HTTP/1.1\r\n").status, Status::NotTls);
        QCOMPARE(readClientHelloSni("SSH-2.0-x").status, Status::NotTls);
        QCOMPARE(readClientHelloSni(QByteArray::fromHex("8077010301")).status,
                 Status::NotTls); // SSLv2
        QCOMPARE(readClientHelloSni(QByteArray()).status, Status::Incomplete);
    }

    void inconsistentLengthsAreMalformed_data()
    {
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("delta");
        // Offsets in inRecords(clientHello(serverNameExtension({"example.org"}))).
        const auto row = [](const char* name, int offset, int width, int delta) {
            QTest::newRow(name) << offset << width << delta;
        };
        row("record shorter", 3, 2, -1);
        row("record empty", 3, 2, -int(0x100000)); // replaced below by 0
        row("handshake shorter", 6, 3, -1);
        row("handshake type", 5, 1, 1);
        row("record type", 0, 1, 1);
        row("record version", 1, 1, 1);
        row("record minor version", 2, 1, 4);
        row("legacy version", 9, 1, -1);
        row("session id longer", 43, 1, 1);
        row("session id shorter", 43, 1, -1);
        row("session id over 32", 43, 1, 33 - 32);
        row("cipher suites odd", 77, 1, 1);
        row("cipher suites longer", 77, 1, 2);
        row("cipher suites shorter", 77, 1, -2);
        row("cipher suites empty", 77, 1, -4);
        row("compression longer", 82, 1, 1);
        row("compression empty", 82, 1, -1);
        row("extensions longer", 84, 2, 1);
        row("extensions shorter", 84, 2, -1);
        row("supported_versions longer", 88, 2, 1);
        row("server_name longer", 95, 2, 1);
        row("server_name shorter", 95, 2, -1);
        row("name list longer", 97, 2, 1);
        row("name list shorter", 97, 2, -1);
        row("name type", 99, 1, 1);
        row("name longer", 100, 2, 1);
        row("name shorter", 100, 2, -1);
    }
    void inconsistentLengthsAreMalformed()
    {
        QFETCH(int, offset);
        QFETCH(int, width);
        QFETCH(int, delta);
        QByteArray hello = inRecords(clientHello(serverNameExtension({"example.org"})));
        QCOMPARE(hello.mid(102, 11), QByteArray("example.org")); // the offsets above are right
        QCOMPARE(readClientHelloSni(hello).status, Status::Found);
        quint32 value = 0;
        for (int i = 0; i < width; ++i)
            value = value << 8 | quint8(hello[offset + i]);
        const quint32 mutated = delta < -0xffff ? 0 : quint32(qint64(value) + delta);
        hello.replace(offset, width, number(mutated, width));
        const Status status = readClientHelloSni(hello).status;
        QVERIFY2(status == Status::Malformed || (offset == 0 && status == Status::NotTls),
                 qPrintable(QStringLiteral("status %1").arg(int(status))));
    }

    void lengthsPastTheBytesWaitThenFail()
    {
        const QByteArray hello = inRecords(clientHello(serverNameExtension({"example.org"})));
        QByteArray longer = hello;
        longer[4] = char(quint8(longer[4]) + 1); // the record claims one byte more
        QCOMPARE(readClientHelloSni(longer).status, Status::Incomplete);
        QCOMPARE(readClientHelloSni(longer + '\0').status,
                 Status::Malformed); // a byte after the hello
        QByteArray handshakeLonger = hello;
        handshakeLonger[8] = char(quint8(handshakeLonger[8]) + 1); // the hello claims one byte more
        QCOMPARE(readClientHelloSni(handshakeLonger).status, Status::Incomplete);
        // ... and its next record is not a handshake record
        QCOMPARE(readClientHelloSni(handshakeLonger + QByteArray::fromHex("1503030001")).status,
                 Status::Malformed);
        // A hello that could never fit.
        QByteArray huge = hello;
        huge.replace(6, 3, number(kMaxClientHelloBytes, 3));
        QCOMPARE(readClientHelloSni(huge.first(9)).status, Status::Malformed);
        // Records that never end the hello stop at the limit.
        QByteArray endless = number(1, 1) + number(0xffff00, 3);
        QByteArray stream;
        while (stream.size() < kMaxClientHelloBytes)
            stream += inRecords(endless.leftJustified(16384, '\0'));
        QCOMPARE(readClientHelloSni(stream.first(kMaxClientHelloBytes - 1)).status,
                 Status::Malformed);
        QByteArray big = QByteArray(1, '\1') + number(60000, 3) + QByteArray(60000, '\0');
        const QByteArray bigRecords = inRecords(big, {16384, 16384, 16384});
        QVERIFY(bigRecords.size() < kMaxClientHelloBytes);
        QCOMPARE(readClientHelloSni(bigRecords.first(bigRecords.size() - 1)).status,
                 Status::Incomplete);
        QCOMPARE(readClientHelloSni(bigRecords).status, Status::Malformed); // not a valid body
    }

    void badServerNamesAreMalformed_data()
    {
        QTest::addColumn<QByteArray>("extensions");
        QTest::newRow("ipv4 literal") << serverNameExtension({"127.0.0.1"});
        QTest::newRow("ipv6 literal") << serverNameExtension({"::1"});
        QTest::newRow("odd ipv4") << serverNameExtension({"0x7f.1"});
        QTest::newRow("two host names") << serverNameExtension({"a.example", "b.example"});
        QTest::newRow("two extensions")
            << serverNameExtension({"a.example"}) + serverNameExtension({"b.example"});
        QTest::newRow("empty name") << serverNameExtension({""});
        QTest::newRow("empty list") << number(0, 2) + vector16(vector16({}));
        QTest::newRow("empty extension") << number(0, 2) + vector16({});
        QTest::newRow("trailing dot") << serverNameExtension({"example.org."});
        QTest::newRow("nul") << serverNameExtension({QByteArray("example.org\0x", 13)});
        QTest::newRow("not ascii") << serverNameExtension({"b\xc3\xbc"
                                                           "cher.example"});
        QTest::newRow("space") << serverNameExtension({"example.org "});
        QTest::newRow("other name type")
            << number(0, 2) + vector16(vector16(number(1, 1) + vector16("example.org")));
    }
    void badServerNamesAreMalformed()
    {
        QFETCH(QByteArray, extensions);
        QCOMPARE(readClientHelloSni(inRecords(clientHello(extensions))).status, Status::Malformed);
    }
};

QTEST_GUILESS_MAIN(TestTlsClientHello)
#include "tst_tlsclienthello.moc"
