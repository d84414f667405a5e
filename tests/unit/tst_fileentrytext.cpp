// FileEntryText: what the file tree shows of a guest's names, owners and modes, and the order
// of its listings.

#include "files/FileEntryText.h"

#include <QTest>

class TestFileEntryText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nameShowsHiddenCharactersEscaped()
    {
        QCOMPARE(sbw::fileNameText("evil\xe2\x80\xaetxt.exe\n\t\x1b[31m"),
                 QStringLiteral("evil<U+202E>txt.exe\\n\\t\\x1b[31m"));
        QCOMPARE(sbw::fileNameText("a\xff"
                                   "b"),
                 QStringLiteral("a\ufffdb"));
    }

    // Found by tests/fuzz/fuzz_file_entry (crashes/file_entry/owner-with-tab-and-newline): the
    // owner and group from the guest's long listing kept newlines and tabs, so one cell showed
    // two lines.
    void ownerAndGroupAreOneLine()
    {
        sbw::SftpEntry entry;
        entry.owner = QStringLiteral("\tbin\nroot");
        entry.group = QStringLiteral("grp\u2028x");
        QCOMPARE(sbw::fileOwnerText(entry), QStringLiteral("\\tbin\\nroot:grp<U+2028>x"));
        entry.owner.clear();
        entry.uid = 1000;
        QCOMPARE(sbw::fileOwnerText(entry), QStringLiteral("1000:grp<U+2028>x"));
    }

    void modeIsLsStyle()
    {
        QCOMPARE(sbw::fileModeText(0040755), QStringLiteral("drwxr-xr-x"));
        QCOMPARE(sbw::fileModeText(0104754), QStringLiteral("-rwsr-xr--"));
        QCOMPARE(sbw::fileModeText(0121000), QStringLiteral("l--------T"));
    }

    void foldersFirstThenNamesWithoutCase()
    {
        sbw::SftpEntry folder;
        folder.type = sbw::SftpEntry::Type::Directory;
        folder.name = "zeta";
        sbw::SftpEntry lower;
        lower.name = "alpha";
        sbw::SftpEntry upper;
        upper.name = "Alpha";
        const auto f = sbw::FileListingKey::of(folder);
        const auto l = sbw::FileListingKey::of(lower);
        const auto u = sbw::FileListingKey::of(upper);
        QVERIFY(f < l && f < u);
        QVERIFY(u < l); // equal without case: the raw bytes decide
        QVERIFY(!(l < u) && !(l < l));
    }
};

QTEST_GUILESS_MAIN(TestFileEntryText)
#include "tst_fileentrytext.moc"
