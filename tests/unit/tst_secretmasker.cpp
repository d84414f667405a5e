#include "log/SecretMasker.h"

#include <QtTest>

using sbw::SecretMasker;

class TestSecretMasker : public QObject
{
    Q_OBJECT

    static QByteArray mask() { return QByteArray(SecretMasker::kMask); }

private Q_SLOTS:
    void wholeTextIsMasked()
    {
        QCOMPARE(SecretMasker::maskAll("export T=hunter2; echo hunter2!", {"hunter2"}),
                 "export T=" + mask() + "; echo " + mask() + "!");
    }

    void aSecretSplitAcrossChunksIsMasked()
    {
        SecretMasker masker({"s3cr3t-value"});
        QByteArray shown;
        for (const char* chunk : {"token: s3c", "r3t-va", "lue\nnext s3", "cr3t-valu", "e end"})
            shown += masker.feed(chunk);
        shown += masker.finish();
        QCOMPARE(shown, "token: " + mask() + "\nnext " + mask() + " end");
    }

    void aPrefixThatIsNotASecretIsReleased()
    {
        SecretMasker masker({"abcdef"});
        QCOMPARE(masker.feed("xx abc"), QByteArray("xx "));
        QCOMPARE(masker.feed("dx"), QByteArray("abcdx"));
        QCOMPARE(masker.feed("ab"), QByteArray());
        QCOMPARE(masker.finish(), QByteArray("ab"));
    }

    void longerSecretWinsAndEmptyValuesAreIgnored()
    {
        QCOMPARE(SecretMasker::maskAll("pass password", {"pass", "", "password"}),
                 mask() + " " + mask());
        QCOMPARE(SecretMasker::maskAll("nothing here", {""}), QByteArray("nothing here"));
    }

    void bytesThatAreNotUtf8PassUnchanged()
    {
        const QByteArray binary("\xff\x00\xfe key \x80", 9);
        QCOMPARE(SecretMasker::maskAll(binary, {"key"}), QByteArray("\xff\x00\xfe ", 4) + mask() + QByteArray(" \x80"));
    }
};

QTEST_GUILESS_MAIN(TestSecretMasker)
#include "tst_secretmasker.moc"
