// GuestTextDecoder and isValidUtf8(): guest bytes, split anywhere, decode once and exactly.

#include "base/GuestTextDecoder.h"

#include <QTest>

class TestGuestTextDecoder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void characterSplitAcrossChunksDecodesOnce()
    {
        sbw::GuestTextDecoder decoder;
        const QByteArray euro = "\xe2\x82\xac";
        QCOMPARE(decoder.decode(euro.first(1)), QString());
        QCOMPARE(decoder.decode(euro.sliced(1) + "x"), QStringLiteral("\u20acx"));
        QCOMPARE(decoder.finish(), QString());
    }

    void byteInterruptingASequenceIsKept()
    {
        sbw::GuestTextDecoder decoder;
        QString text = decoder.decode("\xe2");
        text += decoder.decode("x");
        text += decoder.finish();
        QCOMPARE(text, QStringLiteral("\ufffdx"));
    }

    void validUtf8()
    {
        QVERIFY(sbw::isValidUtf8(""));
        QVERIFY(sbw::isValidUtf8("plain ascii\n"));
        QVERIFY(sbw::isValidUtf8("\xe2\x82\xac \xf0\x9f\x98\x80"));
        QVERIFY(!sbw::isValidUtf8("\x89PNG\r\n\x1a\n"));
        QVERIFY(!sbw::isValidUtf8("\xe2\x82"));  // truncated
        QVERIFY(!sbw::isValidUtf8("\xc0\xaf"));  // overlong '/'
        QVERIFY(!sbw::isValidUtf8(QByteArray("a\xff", 2)));
    }
};

QTEST_GUILESS_MAIN(TestGuestTextDecoder)
#include "tst_guesttextdecoder.moc"
