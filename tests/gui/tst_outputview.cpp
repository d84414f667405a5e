// OutputView shows untrusted guest output: escapes visible, invalid UTF-8 replaced, split
// characters joined, stderr coloured, and a capped view with a visible note.

#include "widgets/OutputView.h"

#include <QElapsedTimer>
#include <QTextBlock>
#include <QTextDocument>
#include <QtTest>

using sbw::OutputStream;
using sbw::OutputView;

namespace {

constexpr auto Out = OutputStream::Stdout;
constexpr auto Err = OutputStream::Stderr;

QByteArray bytes(const char* text)
{
    return QByteArray(text);
}

/// Colour of the first text fragment in the document whose text is exactly `text`.
std::optional<QColor> colourOf(const QTextDocument* document, const QString& text)
{
    for (QTextBlock block = document->begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (fragment.text() == text)
                return fragment.charFormat().foreground().color();
        }
    }
    return std::nullopt;
}

} // namespace

class TestOutputView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsEscapeSequencesVisibly();
    void showsOscClipboardSequenceVisibly();
    void showsC1ControlsVisibly();
    void showsBidiOverridesVisibly();
    void showsOtherHiddenCharactersVisibly();
    void replacesInvalidUtf8();
    void joinsCharacterSplitAcrossChunks();
    void keepsOneDecoderPerStream();
    void replacesIncompleteSequenceAtEnd();
    void keepsByteAfterInterruptedSequence();
    void coloursStderrDifferently();
    void truncatesVeryLargeAppendWithNote();
    void truncatesChunkedOutputAndUpdatesNote();
    void showsHugeSingleLineQuickly();
    void breaksLongLines();
    void capsLines();
    void neverSplitsSurrogatePair();
    void notesAreEscapedAndOnTheirOwnLine();
    void clearOutputResets();
};

void TestOutputView::showsEscapeSequencesVisibly()
{
    OutputView view;
    view.appendOutput(Out, bytes("\x1b[31mred\x1b[0m\n"));
    QCOMPARE(view.shownText(), QStringLiteral("\\x1b[31mred\\x1b[0m\n"));
}

void TestOutputView::showsOscClipboardSequenceVisibly()
{
    OutputView view;
    // OSC 52 would set the terminal's clipboard; BEL ends it.
    view.appendOutput(Out, bytes("\x1b]52;c;aGVsbG8=\x07"
                                 "after"));
    QCOMPARE(view.shownText(), QStringLiteral("\\x1b]52;c;aGVsbG8=\\x07after"));
}

void TestOutputView::showsC1ControlsVisibly()
{
    OutputView view;
    // A lone 0x9b byte (CSI in 8-bit terminals) is not UTF-8: replaced.
    view.appendOutput(Out, bytes("a\x9b"
                                 "2Jb\n"));
    // U+009B encoded as UTF-8 is a real C1 control: shown escaped.
    view.appendOutput(Out, bytes("c\xc2\x9b"
                                 "2Jd\xc2\x85"
                                 "e\n"));
    QCOMPARE(view.shownText(), QStringLiteral("a\uFFFD2Jb\nc\\x9b2Jd\\x85e\n"));
}

void TestOutputView::showsBidiOverridesVisibly()
{
    OutputView view;
    // RLO (U+202E), LRI (U+2066), PDI (U+2069), RLM (U+200F)
    view.appendOutput(Out,
                      bytes("file\xe2\x80\xaetxt.exe \xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8f\n"));
    QCOMPARE(view.shownText(), QStringLiteral("file<U+202E>txt.exe <U+2066>x<U+2069> <U+200F>\n"));
}

void TestOutputView::showsOtherHiddenCharactersVisibly()
{
    OutputView view;
    // tab and newline pass; CR, NUL, DEL, LINE SEPARATOR, BOM and Qt's frame marker U+FDD0 do not
    view.appendOutput(Out, bytes("a\tb\r\n"));
    view.appendOutput(Out, QByteArray("\x00\x7f|\xe2\x80\xa8|\xef\xbb\xbf|\xef\xb7\x90\n", 15));
    QCOMPARE(view.shownText(), QStringLiteral("a\tb\\r\n\\x00\\x7f|<U+2028>|<U+FEFF>|<U+FDD0>\n"));
}

void TestOutputView::replacesInvalidUtf8()
{
    OutputView view;
    // a stray 0xff, an overlong "/" (0xc0 0xaf), a lead byte without its continuation
    view.appendOutput(Out, bytes("a\xff"
                                 "b\xc0\xaf"
                                 "c\xe2"
                                 "d\n"));
    QCOMPARE(view.shownText(), QStringLiteral("a\uFFFDb\uFFFD\uFFFDc\uFFFDd\n"));
}

void TestOutputView::joinsCharacterSplitAcrossChunks()
{
    OutputView view;
    view.appendOutput(Out, bytes("caf\xc3"));
    view.appendOutput(Out, bytes("\xa9 \xe2"));
    view.appendOutput(Out, bytes("\x82"));
    view.appendOutput(Out, bytes("\xac 5\n"));
    QCOMPARE(view.shownText(), QStringLiteral("café € 5\n"));
}

void TestOutputView::keepsOneDecoderPerStream()
{
    OutputView view;
    view.appendOutput(Out, bytes("\xe2\x82"));
    view.appendOutput(Err, bytes("x"));
    view.appendOutput(Out, bytes("\xac"));
    QCOMPARE(view.shownText(), QStringLiteral("x€"));
}

void TestOutputView::replacesIncompleteSequenceAtEnd()
{
    OutputView view;
    view.appendOutput(Out, bytes("ok\xe2\x82"));
    QCOMPARE(view.shownText(), QStringLiteral("ok"));
    view.endOutput();
    QCOMPARE(view.shownText(), QStringLiteral("ok\uFFFD"));
}

void TestOutputView::keepsByteAfterInterruptedSequence()
{
    OutputView view;
    // A sequence cut by the chunk end and never completed: the next byte must still show.
    view.appendOutput(Out, bytes("a\xe2"));
    view.appendOutput(Out, bytes("\x1b[0m\n"));
    QCOMPARE(view.shownText(), QStringLiteral("a\uFFFD\\x1b[0m\n"));
}

void TestOutputView::coloursStderrDifferently()
{
    OutputView view;
    view.appendOutput(Out, bytes("out\n"));
    view.appendOutput(Err, bytes("err\n"));
    view.appendOutput(Err, bytes("\x1b"));
    QCOMPARE(view.shownText(), QStringLiteral("out\nerr\n\\x1b"));

    const auto outColour = colourOf(view.document(), QStringLiteral("out"));
    const auto errColour = colourOf(view.document(), QStringLiteral("err"));
    QVERIFY(outColour && errColour);
    QVERIFY(*outColour != *errColour);
    QCOMPARE(*errColour, view.streamFormat(Err).foreground().color());
    QCOMPARE(*outColour, view.streamFormat(Out).foreground().color());
    // The escaped ESC keeps the stream's colour and gets a background of its own.
    QCOMPARE(colourOf(view.document(), QStringLiteral("\\x1b")), errColour);
    QVERIFY(view.escapeFormat(Err).background() != view.streamFormat(Err).background());
}

void TestOutputView::truncatesVeryLargeAppendWithNote()
{
    OutputView view;
    view.resize(800, 600);
    view.show();
    // 20 MiB of 64-byte lines; the default caps hold 2 MiB characters = 32768 such lines.
    const QByteArray line = QByteArray(63, 'x') + '\n';
    const QByteArray big = line.repeated(20 * 1024 * 1024 / line.size());
    QCOMPARE(big.size(), 20 * 1024 * 1024);

    QElapsedTimer timer;
    timer.start();
    view.appendOutput(Out, big);
    view.endOutput();
    QCoreApplication::processEvents();
    const qint64 ms = timer.elapsed();

    const QString expected =
        QString::fromLatin1(line.repeated(OutputView::kDefaultMaxChars / 64)) +
        QStringLiteral("[output truncated in view: 20.0 MiB total; full output kept]");
    QVERIFY(view.isTruncated());
    QCOMPARE(view.totalBytes(), qint64(big.size()));
    QCOMPARE(view.shownText(), expected);
    qInfo("20 MiB append: %lld ms", ms);
    QVERIFY2(ms < 5000, qPrintable(QStringLiteral("append took %1 ms").arg(ms)));
}

void TestOutputView::truncatesChunkedOutputAndUpdatesNote()
{
    OutputView view;
    view.setLimits(100, 1000);
    view.appendOutput(Out, QByteArray(60, 'a'));
    view.appendOutput(Err, QByteArray(60, 'b'));
    QCOMPARE(view.shownText(), QString(60, u'a') + QString(40, u'b') +
                                   QStringLiteral("\n[output truncated in view: 120 bytes "
                                                  "total; full output kept]"));
    // Further output is counted, not shown; the note follows the total.
    for (int i = 0; i < 16; ++i)
        view.appendOutput(i % 2 ? Err : Out, QByteArray(256 * 1024, 'c'));
    view.endOutput();
    QCOMPARE(view.shownText(), QString(60, u'a') + QString(40, u'b') +
                                   QStringLiteral("\n[output truncated in view: 4.0 MiB "
                                                  "total; full output kept]"));
    QCOMPARE(view.totalBytes(), qint64(120 + 16 * 256 * 1024));
}

void TestOutputView::showsHugeSingleLineQuickly()
{
    OutputView view;
    view.resize(800, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // 20 MiB without a newline, in 1 MiB batches as RunController delivers them.
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 20; ++i) {
        view.appendOutput(Out, QByteArray(1024 * 1024, 'y'));
        QCoreApplication::processEvents();
    }
    view.repaint();
    const qint64 ms = timer.elapsed();
    qInfo("20 MiB single line: %lld ms", ms);
    // Broken every kMaxLineChars characters with a marked break, up to the character cap, which
    // the second batch reaches exactly at its end: the last piece is cut, not broken.
    const QString piece = QString(OutputView::kMaxLineChars, u'y');
    const int pieces = int(OutputView::kDefaultMaxChars / OutputView::kMaxLineChars);
    QCOMPARE(view.shownText(),
             (piece + QStringLiteral("↩\n")).repeated(pieces - 1) + piece +
                 QStringLiteral("\n[output truncated in view: 20.0 MiB total; full output kept]"));
    QVERIFY2(ms < 5000, qPrintable(QStringLiteral("append took %1 ms").arg(ms)));
}

void TestOutputView::breaksLongLines()
{
    OutputView view;
    const qsizetype max = OutputView::kMaxLineChars;
    view.appendOutput(Out, QByteArray(max - 1, 'a'));
    view.appendOutput(Err, QByteArray(2 * max + 10, 'b') + "\n" + QByteArray(max, 'c') + "\nd");
    const QString expected = QString(max - 1, u'a') + QString(1, u'b') + QStringLiteral("↩\n") +
                             QString(max, u'b') + QStringLiteral("↩\n") + QString(max, u'b') +
                             QStringLiteral("↩\n") + QString(9, u'b') + QStringLiteral("\n") +
                             QString(max, u'c') + QStringLiteral("\nd");
    QCOMPARE(view.shownText(), expected);
}

void TestOutputView::capsLines()
{
    OutputView view;
    view.setLimits(1000, 3);
    view.appendOutput(Out, bytes("1\n2\n3\n4\n5\n"));
    QCOMPARE(
        view.shownText(),
        QStringLiteral("1\n2\n3\n[output truncated in view: 10 bytes total; full output kept]"));
}

void TestOutputView::neverSplitsSurrogatePair()
{
    OutputView view;
    view.setLimits(3, 100);
    view.appendOutput(Out, bytes("ab\xf0\x9f\x98\x80z")); // "ab😀z": 😀 is two UTF-16 units
    QCOMPARE(view.shownText(),
             QStringLiteral("ab\n[output truncated in view: 7 bytes total; full output kept]"));
}

void TestOutputView::notesAreEscapedAndOnTheirOwnLine()
{
    OutputView view;
    view.appendOutput(Out, bytes("partial"));
    view.appendNote(QStringLiteral("error: \x1b[2J gone"));
    QCOMPARE(view.shownText(), QStringLiteral("partial\nerror: \\x1b[2J gone"));
    QVERIFY(view.noteFormat().fontItalic());
}

void TestOutputView::clearOutputResets()
{
    OutputView view;
    view.setLimits(4, 100);
    view.appendOutput(Out, bytes("abcdef\xe2"));
    QVERIFY(view.isTruncated());
    view.clearOutput();
    QVERIFY(!view.isTruncated());
    QCOMPARE(view.totalBytes(), 0);
    view.appendOutput(Out, bytes("\x82\xac"));
    view.appendOutput(Out, bytes("ok"));
    // The decoder forgot the partial sequence: the orphan continuation bytes are invalid.
    QVERIFY2(view.shownText().endsWith(QStringLiteral("ok")), qPrintable(view.shownText()));
    QVERIFY(view.shownText().startsWith(QChar(0xfffd)));
}

QTEST_MAIN(TestOutputView)
#include "tst_outputview.moc"
