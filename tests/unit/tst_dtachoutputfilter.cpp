// DtachOutputFilter: what dtach's client draws of its own (the clear screen on attaching, the
// line when the shell has ended) is taken out, however the bytes are split; the shell's own
// bytes, escape sequences included, pass unchanged.

#include "guest/DtachOutputFilter.h"

#include <QtTest>

using sbw::DtachOutputFilter;

namespace {

const QByteArray kAttach = QByteArrayLiteral("\x1b[H\x1b[J");
const QByteArray kEnd = QByteArrayLiteral("\x1b[999H\r\n[EOF - dtach terminating]\r\n");

/// The filter's whole output for `bytes` given in pieces of `piece` bytes, then closed.
QByteArray filtered(const QByteArray& bytes, qsizetype piece)
{
    DtachOutputFilter filter;
    QByteArray shown;
    for (qsizetype at = 0; at < bytes.size(); at += piece)
        shown += filter.filter(bytes.mid(at, piece));
    return shown + filter.finish();
}

} // namespace

class TestDtachOutputFilter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dtachsOwnBytesAreTakenOut_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QByteArray>("shown");
        QTest::newRow("a session")
            << kAttach + "root@guest:~# exit\r\nlogout\r\n" + kEnd + "\x1b[?25h"
            << QByteArray("root@guest:~# exit\r\nlogout\r\n\x1b[?25h");
        QTest::newRow("the shell's own clear is kept")
            << kAttach + "$ clear\r\n" + kAttach + "$ "
            << QByteArray("$ clear\r\n") + kAttach + "$ ";
        QTest::newRow("escape sequences pass") << kAttach + "\x1b[1;31mred\x1b[0m \x1b[999;1H"
                                               << QByteArray("\x1b[1;31mred\x1b[0m \x1b[999;1H");
        QTest::newRow("no clear first (a plain shell)")
            << QByteArray("$ ls\r\n") << QByteArray("$ ls\r\n");
        QTest::newRow("cut short: what was held is shown")
            << kAttach + "x" + kEnd.left(10) << QByteArray("x") + kEnd.left(10);
    }

    void dtachsOwnBytesAreTakenOut()
    {
        QFETCH(QByteArray, output);
        QFETCH(QByteArray, shown);
        for (const qsizetype piece : {qsizetype(1), qsizetype(2), qsizetype(5), output.size()})
            QCOMPARE(filtered(output, piece), shown);
    }

    void onlyAnUnfinishedSequenceWaits()
    {
        DtachOutputFilter filter;
        QCOMPARE(filter.filter(kAttach + "$ "), QByteArray("$ "));
        QCOMPARE(filter.filter("ls\r\n\x1b["), QByteArray("ls\r\n"));
        QCOMPARE(filter.filter("1m"), QByteArray("\x1b[1m"));
    }
};

QTEST_GUILESS_MAIN(TestDtachOutputFilter)
#include "tst_dtachoutputfilter.moc"
