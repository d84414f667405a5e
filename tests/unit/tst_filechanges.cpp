#include "changes/ChangeReport.h"
#include "changes/FileDiff.h"
#include "changes/ChangeScan.h"
#include "changes/ChangeWatch.h"
#include "changes/FileChangeBounds.h"
#include "changes/ScanComparison.h"
#include "changes/ScanEntry.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace sbw;
using namespace sbw::file_change_bounds;

namespace {

ScanEntry file(const QByteArray& path, qint64 size, qint64 mtimeNs = 1)
{
    return ScanEntry{path, 'f', size, mtimeNs};
}

QByteArray record(const ScanEntry& e)
{
    return e.path + '\t' + e.type + ' ' + QByteArray::number(e.size) + ' ' + QByteArray::number(e.mtimeNs / 1'000'000'000) +
           '.' + QByteArray::number(e.mtimeNs % 1'000'000'000).rightJustified(9, '0') + '\0';
}

/// What the guest's exec after prints, from its two scans.
QByteArray report(const QList<ScanEntry>& before, const QList<ScanEntry>& after)
{
    QByteArray out = QByteArray("#before") + '\0';
    for (const ScanEntry& e : before)
        out += record(e);
    out += QByteArray(1, '\0') + "#after" + '\0';
    for (const ScanEntry& e : after)
        out += record(e);
    return out + '\0' + "#end" + '\0';
}

/// The scan and contents execs, run here with sh on the host (a GuestExec).
Expected<ExecStatus> execHere(const ExecRequest& request)
{
    QProcess sh;
    sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), QString::fromUtf8(request.command)});
    sh.closeWriteChannel();
    if (!sh.waitForFinished(60'000))
        return makeError(QStringLiteral("sh did not finish"));
    const QByteArray out = sh.readAllStandardOutput();
    if (request.onStdout)
        request.onStdout(out);
    ExecStatus status;
    status.exitStatus = sh.exitCode();
    return status;
}

/// Runs a shell command on the host, as the guest's exec would.
QByteArray runHere(const QByteArray& command)
{
    QProcess sh;
    sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), QString::fromUtf8(command)});
    if (!sh.waitForFinished(60'000) || sh.exitCode() != 0)
        qWarning() << "exit" << sh.exitCode() << sh.readAllStandardError();
    return sh.readAllStandardOutput();
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestFileChanges : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recordsWithHostileNamesAreReadFromTheLastTab()
    {
        auto e = parseScanRecord(QByteArrayView("/root/a\tb\nc d\tf 12 1700000000.1234567890"));
        QVERIFY(e);
        QCOMPARE(e->path, QByteArray("/root/a\tb\nc d"));
        QCOMPARE(e->type, 'f');
        QCOMPARE(e->size, 12);
        QCOMPARE(e->mtimeNs, 1700000000123456789LL);
        auto invalidUtf8 = parseScanRecord(QByteArrayView("/root/\xff\xfe\td 0 0"));
        QVERIFY(invalidUtf8);
        QCOMPARE(invalidUtf8->path, QByteArray("/root/\xff\xfe"));
    }

    void malformedRecordsAreDropped()
    {
        for (const char* bad : {"", "/root/a", "root/a\tf 1 1.0", "/root/a\tx 1 1.0", "/root/a\tf -1 1.0",
                                "/root/a\tf 1", "/root/a\tf 99999999999999999999 1.0", "/root/a\tf 1 1.0 extra",
                                "/root/a\tf 1 1.x", "/root/a\tff 1 1.0", "\tf 1 1.0"})
            QVERIFY2(!parseScanRecord(QByteArrayView(bad)), bad);
    }

    void findTimesAreNanoseconds()
    {
        QCOMPARE(parseFindTime("1.5"), 1'500'000'000LL);
        QCOMPARE(parseFindTime("2"), 2'000'000'000LL);
        QCOMPARE(parseFindTime("0.0000000019"), 1LL); // find writes 10 digits; the 10th is dropped
        QVERIFY(!parseFindTime("99999999999.0"));
        QVERIFY(!parseFindTime("-1.0"));
    }

    void comparisonFindsCreatedModifiedDeleted()
    {
        const QList<ScanEntry> before{file("/r/same", 1), file("/r/grown", 1), file("/r/touched", 5, 10),
                                      file("/r/gone", 7), ScanEntry{"/r/was-file", 'f', 3, 1},
                                      ScanEntry{"/r/dir", 'd', 0, 0}};
        const QList<ScanEntry> after{file("/r/same", 1), file("/r/grown", 4), file("/r/touched", 5, 11),
                                     file("/r/new", 9), ScanEntry{"/r/was-file", 'l', 3, 1},
                                     ScanEntry{"/r/dir", 'd', 0, 0}};
        const FileChanges changes = compareScans(before, after, 100);
        QStringList seen;
        for (const FileChange& c : changes.files)
            seen << c.path + QLatin1Char(' ') + changeKindName(c.kind) + QLatin1Char(' ') +
                        QString::number(c.sizeBefore) + QLatin1Char('>') + QString::number(c.sizeAfter);
        QCOMPARE(seen, QStringList({"/r/gone deleted 7>-1", "/r/grown modified 1>4", "/r/new created -1>9",
                                    "/r/touched modified 5>5", "/r/was-file modified 3>3"}));
        QCOMPARE(changes.created, 1);
        QCOMPARE(changes.modified, 3);
        QCOMPARE(changes.deleted, 1);
        QCOMPARE(changes.files[4].typeName(), QStringLiteral("symlink"));
    }

    void listIsBoundedAndTheRestCounted()
    {
        QList<ScanEntry> after;
        for (int i = 0; i < 1204 + 3; ++i)
            after << file("/r/f" + QByteArray::number(i), i);
        const FileChanges changes = compareScans({}, after, 3);
        QCOMPARE(changes.files.size(), 3);
        QCOMPARE(changes.created, 1207);
        QCOMPARE(changes.moreText(), QStringLiteral("1,204 more files changed, not listed"));
        QCOMPARE(changes.summary(), QStringLiteral("1,207 files changed (1,207 created, 0 modified, 0 deleted)"));
    }

    void scanReportsAreReadDefensively()
    {
        auto pair = readScanReport(report({file("/r/a", 1), file("/r/b", 2)}, {file("/r/a", 3)}), {"/r"});
        QVERIFY(pair);
        QCOMPARE(pair->before.size(), 2);
        QCOMPARE(pair->after.size(), 1);
        QCOMPARE(readScanReport(QByteArray("#unknown no list") + '\0', {"/r"}).error().message, QStringLiteral("no list"));
        QByteArray cut = report({}, {file("/r/a", 1)});
        cut.chop(5);
        QVERIFY(readScanReport(cut, {"/r"}).error().message.contains("cut off"));
        QVERIFY(!readScanReport("garbage", {"/r"}));
        QVERIFY(!readScanReport({}, {"/r"}));
        QList<ScanEntry> many;
        for (qint64 i = 0; i <= kMaxScanEntries; ++i)
            many << file("/r/f" + QByteArray::number(i), 1);
        QVERIFY(readScanReport(report({}, many), {"/r"}).error().message.contains("more than 20,000 entries"));
        many.removeLast();
        QVERIFY(readScanReport(report(many, many), {"/r"}));
    }

    void contentsAreSplitBySizesAndChecked()
    {
        const QByteArray out = QByteArray("2 1.5 /r/a\tb") + '\0' + "0 2.0 /r/empty" + '\0' + "3 3.0 /r/c" + '\0' +
                               "#cat" + '\0' + "ab" + "xyz";
        auto contents = readContents(out);
        QVERIFY(contents);
        QCOMPARE(contents->value("/r/a\tb").bytes, QByteArray("ab"));
        QCOMPARE(contents->value("/r/a\tb").mtimeNs, 1'500'000'000LL);
        QCOMPARE(contents->value("/r/empty").bytes, QByteArray());
        QCOMPARE(contents->value("/r/c").bytes, QByteArray("xyz"));
        QVERIFY(!readContents(QByteArray("2 1.5 /r/a") + '\0' + "#cat" + '\0' + "abc")); // changed while read
        QVERIFY(!readContents(QByteArray("99999999 1.5 /r/a") + '\0' + "#cat" + '\0'));  // past the cap
        QVERIFY(!readContents(QByteArray("x 1.5 /r/a") + '\0' + "#cat" + '\0'));
        QVERIFY(!readContents(QByteArray("2 1.5 /r/a")));
    }

    void diffsOnlyForSmallTextFilesWithBothSides()
    {
        FileChange edit{"/r/t", ChangeKind::Modified, 'f', 'f', 4, 6, {}, false, {}};
        attachDiff(edit, QByteArray("a\nb\n"), QByteArray("a\nb\nc\n"));
        QVERIFY(edit.hasDiff);
        QVERIFY(edit.diff.startsWith("--- /r/t\n+++ /r/t\n"));
        QVERIFY(edit.diff.endsWith(" a\n b\n+c\n"));
        FileChange unknownBefore = FileChange{"/r/t", ChangeKind::Modified, 'f', 'f', 4, 6, {}, false, {}};
        attachDiff(unknownBefore, std::nullopt, QByteArray("xy"));
        QCOMPARE(unknownBefore.diffNote, QStringLiteral("no diff: the content before the command was not kept"));
        FileChange latin1{"/r/l", ChangeKind::Created, 0, 'f', -1, 1, {}, false, {}};
        attachDiff(latin1, std::nullopt, QByteArray("\xe9"));
        QCOMPARE(latin1.diffNote, QStringLiteral("binary: no diff"));
        FileChange touched{"/r/t", ChangeKind::Modified, 'f', 'f', 2, 2, {}, false, {}};
        attachDiff(touched, QByteArray("ab"), QByteArray("ab"));
        QCOMPARE(touched.diffNote, QStringLiteral("same content: only its time changed"));
        FileChange link{"/r/l", ChangeKind::Created, 0, 'l', -1, 4, {}, false, {}};
        attachDiff(link, std::nullopt, QByteArray("abcd"));
        QVERIFY(!link.hasDiff && link.diffNote.isEmpty());
    }

    void watchedFoldersDropNestedOnes()
    {
        QCOMPARE(ChangeWatch::forCommand("/root/project").folders(), QStringList{"/root"});
        QCOMPARE(ChangeWatch::forCommand("/srv/app/").folders(), QStringList({"/root", "/srv/app"}));
        QCOMPARE(ChangeWatch({"/", "/root", "relative"}).folders(), QStringList{"/"});
        QVERIFY(ChangeWatch({"/r"}).token() != ChangeWatch({"/r"}).token());
    }

    /// The guest's commands, run here on a temporary folder: created, modified (with its diff
    /// from the shadow copy that the command before filled), deleted, hostile names, a large
    /// file, a binary one.
    void scriptsFindExactlyTheChanges()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath("work");
        QVERIFY(QDir().mkpath(root + "/sub"));
        QVERIFY(writeFile(root + "/keep.txt", "same\n"));
        QVERIFY(writeFile(root + "/edit.txt", "one\ntwo\n"));
        QVERIFY(writeFile(root + "/sub/gone.txt", "bye\n"));
        QVERIFY(writeFile(root + "/big.bin", QByteArray(kMaxDiffFileBytes + 1, 'x')));
        const QByteArray state = dir.filePath("state").toUtf8();

        // A first command starts the shadow copy in the background.
        ChangeWatch first({root}, state);
        QVERIFY(scanBefore(execHere, first));
        QCOMPARE(scanAfter(execHere, first).summary(), QStringLiteral("no files changed"));
        QTRY_VERIFY(QFileInfo::exists(QString::fromUtf8(first.stampFile())));
        QVERIFY(QFileInfo::exists(QString::fromUtf8(first.shadowPath((root + "/edit.txt").toUtf8()))));
        QVERIFY(!QFileInfo::exists(QString::fromUtf8(first.shadowPath((root + "/big.bin").toUtf8()))));

        ChangeWatch watch({root}, state);
        runHere(watch.beforeScanCommand());
        QTest::qWait(20); // a different mtime for edit.txt even on coarse clocks
        QVERIFY(writeFile(root + "/edit.txt", "one\n2\n"));
        QVERIFY(QFile::remove(root + "/sub/gone.txt"));
        const QString hostile = root + QString::fromUtf8("/new\tname\nwith lines");
        QVERIFY(writeFile(hostile, "hello\n"));
        QVERIFY(writeFile(root + "/data.bin", QByteArray("\0\1\2", 3)));
        QVERIFY(writeFile(root + "/big.bin", QByteArray(kMaxDiffFileBytes + 2, 'x')));
        const FileChanges changes = scanAfter(execHere, watch);
        QVERIFY2(changes.unknown.isEmpty(), qPrintable(changes.unknown));
        QStringList seen;
        for (const FileChange& c : changes.files)
            seen << c.path.mid(root.size()) + QLatin1Char(' ') + changeKindName(c.kind) + QLatin1Char(' ') +
                        QString::number(c.sizeBefore) + QLatin1Char('>') + QString::number(c.sizeAfter) +
                        QLatin1Char(' ') + c.diffNote;
        QCOMPARE(seen, QStringList({"/big.bin modified 65537>65538 larger than 64 KiB: no diff",
                                    "/data.bin created -1>3 binary: no diff", "/edit.txt modified 8>6 ",
                                    "/new\tname\nwith lines created -1>6 ", "/sub/gone.txt deleted 4>-1 "}));
        QVERIFY2(changes.files[2].diff.contains("-two\n+2\n"), changes.files[2].diff.constData());
        QVERIFY(changes.files[3].diff.contains("+hello\n"));
        QVERIFY(changes.files[4].diff.contains("-bye\n"));
        QTRY_VERIFY(!QFileInfo::exists(QString::fromUtf8(watch.beforeFile())));
        // The refresh after the diffs keeps the new content for the next command.
        QTRY_COMPARE(QFileInfo(QString::fromUtf8(watch.shadowPath((root + "/edit.txt").toUtf8()))).size(), 6);
    }

    void aScanThatDidNotRunMakesTheChangesUnknown()
    {
        QTemporaryDir dir;
        ChangeWatch watch({dir.path()}, "/proc/cannot-write-here");
        QVERIFY(!scanBefore(execHere, watch));
        QCOMPARE(scanAfter(execHere, watch).unknown, QStringLiteral("the scan before the command left no list"));
    }
};

QTEST_GUILESS_MAIN(TestFileChanges)
#include "tst_filechanges.moc"
