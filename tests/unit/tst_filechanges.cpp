#include "changes/ChangeReport.h"
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

/// What the guest's exec after prints, from its parts.
QByteArray report(const QList<ScanEntry>& before, const QList<ScanEntry>& after, const QByteArray& contents,
                  qint64 countBefore = 10, qint64 countAfter = 10)
{
    QByteArray records;
    for (const ScanEntry& e : before)
        records += record(e);
    for (const ScanEntry& e : after)
        records += '\t' + record(e);
    return "#counts " + QByteArray::number(countBefore) + ' ' + QByteArray::number(countAfter) + '\0' + "#changes " +
           QByteArray::number(records.size()) + '\0' + records + '\0' + "#contents" + '\0' + contents + "#end" + '\0';
}

QByteArray block(const char* name, const QByteArray& bytes)
{
    return QByteArray("#") + name + ' ' + QByteArray::number(bytes.size()) + '\0' + bytes;
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

    void reportGivesDiffsOfTextFiles()
    {
        const QByteArray out = report({file("/r/t.txt", 4), file("/r/gone", 2)}, {file("/r/t.txt", 6), file("/r/new.bin", 3)},
                                      "#file /r/t.txt" + QByteArray(1, '\0') + block("old", "a\nb\n") +
                                          block("new", "a\nb\nc\n") + "#file /r/new.bin" + QByteArray(1, '\0') +
                                          block("new", QByteArray("\0\1\2", 3)));
        const FileChanges changes = readChangeReport(out, {"/r"});
        QVERIFY(changes.unknown.isEmpty());
        QCOMPARE(changes.files.size(), 3);
        const FileChange& gone = changes.files[0];
        QCOMPARE(gone.kind, ChangeKind::Deleted);
        QCOMPARE(gone.diffNote, QStringLiteral("no diff: only 20 files per command get one"));
        const FileChange& bin = changes.files[1];
        QCOMPARE(bin.diffNote, QStringLiteral("binary: no diff"));
        const FileChange& text = changes.files[2];
        QVERIFY(text.hasDiff);
        QVERIFY2(text.diff.contains("\n a\n b\n+c\n"), text.diff.constData());
        QVERIFY(text.diff.startsWith("--- /r/t.txt\n+++ /r/t.txt\n"));
    }

    void modifiedFileWithoutItsOldContentSaysSo()
    {
        const QByteArray out = report({file("/r/t", 1)}, {file("/r/t", 2)},
                                      "#file /r/t" + QByteArray(1, '\0') + block("new", "xy"));
        const FileChanges changes = readChangeReport(out, {"/r"});
        QCOMPARE(changes.files.value(0).diffNote, QStringLiteral("no diff: the content before the command was not kept"));
    }

    void largeFilesGetNoDiff()
    {
        const FileChanges changes = readChangeReport(report({}, {file("/r/big", kMaxDiffFileBytes + 1)}, {}), {"/r"});
        QCOMPARE(changes.files.value(0).diffNote, QStringLiteral("larger than 64 KiB: no diff"));
    }

    void boundsAndDamageMakeChangesUnknown()
    {
        QVERIFY(readChangeReport(report({}, {}, {}, kMaxScanEntries + 1, 3), {"/r"}).unknown.contains("more than 20,000 entries"));
        QVERIFY(!readChangeReport(report({}, {}, {}, kMaxScanEntries, 3), {"/r"}).unknown.contains("more than"));
        QByteArray cut = report({}, {file("/r/a", 1)}, {});
        cut.truncate(cut.indexOf("#contents"));
        QVERIFY(readChangeReport(cut, {"/r"}).unknown.contains("cut off"));
        QVERIFY(!readChangeReport("garbage", {"/r"}).unknown.isEmpty());
        QVERIFY(!readChangeReport({}, {"/r"}).unknown.isEmpty());
        QCOMPARE(readChangeReport(QByteArray("#unknown no list") + '\0', {"/r"}).unknown, QStringLiteral("no list"));
        // A content block longer than what is left, or than the cap, is not read past the end.
        const QByteArray lying = report({}, {file("/r/a", 1)}, "#file /r/a" + QByteArray(1, '\0') + "#new 999999" + '\0' + "x");
        QCOMPARE(readChangeReport(lying, {"/r"}).files.size(), 1);
    }

    void watchedFoldersDropNestedOnes()
    {
        QCOMPARE(ChangeWatch::forCommand("/root/project").folders(), QStringList{"/root"});
        QCOMPARE(ChangeWatch::forCommand("/srv/app/").folders(), QStringList({"/root", "/srv/app"}));
        QCOMPARE(ChangeWatch({"/", "/root", "relative"}).folders(), QStringList{"/"});
        QVERIFY(ChangeWatch({"/r"}).token() != ChangeWatch({"/r"}).token());
    }

    /// The guest's scripts, run here on a temporary folder: created, modified (with its diff
    /// from the shadow copy of an earlier command), deleted, and hostile names.
    void scriptsFindExactlyTheChanges()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath("work");
        QVERIFY(QDir().mkpath(root + "/sub"));
        QVERIFY(writeFile(root + "/keep.txt", "same\n"));
        QVERIFY(writeFile(root + "/edit.txt", "one\ntwo\n"));
        QVERIFY(writeFile(root + "/sub/gone.txt", "bye\n"));
        const QByteArray state = dir.filePath("state").toUtf8();

        // A first command fills the shadow copy.
        ChangeWatch first({root}, state);
        runHere(first.beforeScanCommand());
        QCOMPARE(readChangeReport(runHere(first.afterScanCommand()), first.folders()).total(), 0);

        ChangeWatch watch({root}, state);
        runHere(watch.beforeScanCommand());
        QTest::qWait(20); // a different mtime for edit.txt even on coarse clocks
        QVERIFY(writeFile(root + "/edit.txt", "one\n2\n"));
        QVERIFY(QFile::remove(root + "/sub/gone.txt"));
        const QString hostile = root + QString::fromUtf8("/new\tname\nwith lines");
        QVERIFY(writeFile(hostile, "hello\n"));
        const FileChanges changes = readChangeReport(runHere(watch.afterScanCommand()), watch.folders());
        QVERIFY2(changes.unknown.isEmpty(), qPrintable(changes.unknown));
        QCOMPARE(changes.files.size(), 3);
        QCOMPARE(changes.files[0].path, root + "/edit.txt");
        QCOMPARE(changes.files[0].kind, ChangeKind::Modified);
        QCOMPARE(changes.files[0].sizeBefore, 8);
        QCOMPARE(changes.files[0].sizeAfter, 6);
        QVERIFY2(changes.files[0].diff.contains("-two\n+2\n"), changes.files[0].diff.constData());
        QCOMPARE(changes.files[1].path, hostile);
        QCOMPARE(changes.files[1].kind, ChangeKind::Created);
        QVERIFY(changes.files[1].diff.contains("+hello\n"));
        QCOMPARE(changes.files[2].path, root + "/sub/gone.txt");
        QCOMPARE(changes.files[2].kind, ChangeKind::Deleted);
        QCOMPARE(changes.files[2].sizeBefore, 4);
        QVERIFY(changes.files[2].diff.contains("-bye\n"));
        QVERIFY(!QFileInfo::exists(QString::fromUtf8(watch.beforeFile())));
    }

    void scanBeforeFailsWhenNothingWasScanned()
    {
        QTemporaryDir dir;
        ChangeWatch watch({dir.path()}, "/proc/cannot-write-here");
        const GuestExec exec = [](const ExecRequest& request) -> Expected<ExecStatus> {
            QProcess sh;
            sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), QString::fromUtf8(request.command)});
            sh.waitForFinished();
            ExecStatus status;
            status.exitStatus = sh.exitCode();
            return status;
        };
        QVERIFY(!scanBefore(exec, watch));
        const FileChanges after = scanAfter(exec, watch);
        QVERIFY(!after.unknown.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFileChanges)
#include "tst_filechanges.moc"
