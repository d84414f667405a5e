// FileEntryText: what the file tree shows of a guest's names, owners and modes, and the order
// of its listings.

#include "files/FileEntryText.h"

#include <QSet>
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
                 QStringLiteral("a\\xffb"));
    }

    // Names that decode to the same text as UTF-8 with replacement characters, or that spell
    // out another name's escapes, still look different: the text gives the bytes back.
    void differentNamesNeverLookTheSame()
    {
        const QList<QByteArray> names{
            "a\xff",         "a\xfe",
            "a\xef\xbf\xbd",            // U+FFFD itself
            "a\\xff",        "a\\\xff", // a backslash, then "xff" or the byte
            "\xc2\x85",      "\x85",    // the C1 control NEL, the lone byte 0x85
            "\xe2\x80\xae",  "<U+202E>",
            "\\x3cU+202E>",
            "\xed\xa0\x80",                      // a UTF-8 surrogate is not UTF-8
            "\xc0\xaf",                          // nor an overlong '/'
            "\xf0\x9f\x98",  "\xf0\x9f\x98\x80", // cut short, whole
            "tab\t",         "tab\\t",
            "nl\n",          "nl\\n",
            "cr\r",          "cr\\r"};
        QSet<QString> shown;
        for (const QByteArray& name : names)
            shown.insert(sbw::fileNameText(name));
        QCOMPARE(shown.size(), names.size());
        QCOMPARE(sbw::fileNameText("a\xef\xbf\xbd"), QStringLiteral("a\ufffd"));
        QCOMPARE(sbw::fileNameText("a\\xff"), QStringLiteral("a\\\\xff"));
        QCOMPARE(sbw::fileNameText("\xc2\x85|\x85"), QStringLiteral("<U+0085>|\\x85"));
        QCOMPARE(sbw::fileNameText("<U+202E>|<U+|<U|\xe2\x80\xae"),
                 QStringLiteral("\\x3cU+202E>|\\x3cU+|<U|<U+202E>"));
        QCOMPARE(sbw::fileNameText("\xf0\x9f\x98\x80 \xf0\x9f\x98"),
                 QStringLiteral("\U0001F600 \\xf0\\x9f\\x98"));
        QCOMPARE(sbw::fileNameText("caf\xc3\xa9/na\xefve"), QStringLiteral("caf\u00e9/na\\xefve"));
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
