// RFC 4180 parsing and the table model over it.

#include "widgets/CsvTableModel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace sbw;

class TestCsvTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesQuotesLineBreaksAndLineEnds()
    {
        const QByteArray csv = "\xef\xbb\xbfname,note\r\n"
                               "\"gamma, delta\",\"say \"\"hi\"\"\"\r\n"
                               "multi,\"one\ntwo\"\n"
                               "empty,\n"
                               ",\n"
                               "last,no newline";
        const QList<QStringList> rows = parseCsv(csv, 100);
        QCOMPARE(rows.size(), 6);
        QCOMPARE(rows[0], (QStringList{QStringLiteral("name"), QStringLiteral("note")}));
        QCOMPARE(rows[1], (QStringList{QStringLiteral("gamma, delta"), QStringLiteral("say \"hi\"")}));
        QCOMPARE(rows[2], (QStringList{QStringLiteral("multi"), QStringLiteral("one\ntwo")}));
        QCOMPARE(rows[3], (QStringList{QStringLiteral("empty"), QString()}));
        QCOMPARE(rows[4], (QStringList{QString(), QString()}));
        QCOMPARE(rows[5], (QStringList{QStringLiteral("last"), QStringLiteral("no newline")}));
    }

    void stopsAtMaxRows()
    {
        bool truncated = false;
        QCOMPARE(parseCsv("a\nb\nc\n", 2, &truncated).size(), 2);
        QVERIFY(truncated);
        QCOMPARE(parseCsv("a\nb\n", 2, &truncated).size(), 2);
        QVERIFY(!truncated);
        QCOMPARE(parseCsv("", 2, &truncated).size(), 0);
    }

    void modelHasHeaderRowsAndEscapedCells()
    {
        CsvTableModel model("name,value\nalpha,1\nbeta\n\x1b[31mred,\"a\r\nb\"\n");
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("value"));
        QCOMPARE(model.headerData(0, Qt::Vertical).toInt(), 1);
        QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("1"));
        QCOMPARE(model.index(1, 1).data().toString(), QString()); // a short row is padded
        QCOMPARE(model.index(2, 0).data().toString(), QStringLiteral("\\x1b[31mred"));
        QCOMPARE(model.index(2, 1).data().toString(), QStringLiteral("a\\r\nb"));
        QVERIFY(!model.isTruncated());
    }
};

QTEST_GUILESS_MAIN(TestCsvTableModel)
#include "tst_csvtablemodel.moc"
