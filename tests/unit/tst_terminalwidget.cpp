// TerminalWidget fed recorded byte streams: cell contents and attributes, wide characters and
// combining marks, the alternate screen, scrollback, resize, keys, pastes, and the sequences a
// guest must not be able to use to reach outside the terminal.

#include "terminal/TerminalScreen.h"
#include "terminal/TerminalTabs.h"
#include "terminal/TerminalText.h"
#include "terminal/TerminalWidget.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QImage>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

using sbw::TerminalColor;
using sbw::TerminalWidget;

namespace {

/// All inputReady() bytes of `spy` joined.
QByteArray typed(const QSignalSpy& spy)
{
    QByteArray bytes;
    for (const QList<QVariant>& call : spy)
        bytes += call.at(0).toByteArray();
    return bytes;
}

QByteArray keyBytes(TerminalWidget& terminal, Qt::Key key, Qt::KeyboardModifiers modifiers = {})
{
    QSignalSpy spy(&terminal, &TerminalWidget::inputReady);
    QTest::keyClick(&terminal, key, modifiers);
    return typed(spy);
}

} // namespace

class TestTerminalWidget : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sixteenColours()
    {
        TerminalWidget terminal;
        terminal.feed("\x1b[31mR\x1b[0m\x1b[92mG\x1b[0m\x1b[44mB\x1b[0mn");
        const auto& screen = terminal.screen();
        QCOMPARE(screen.cell(0, 0).text, QStringLiteral("R"));
        QCOMPARE(screen.cell(0, 0).foreground.kind, TerminalColor::Kind::Indexed);
        QCOMPARE(screen.cell(0, 0).foreground.index, 1);
        QCOMPARE(screen.cell(0, 1).foreground.index, 10);
        QCOMPARE(screen.cell(0, 2).background.kind, TerminalColor::Kind::Indexed);
        QCOMPARE(screen.cell(0, 2).background.index, 4);
        QCOMPARE(screen.cell(0, 2).foreground.kind, TerminalColor::Kind::Default);
        QCOMPARE(screen.cell(0, 3).foreground.kind, TerminalColor::Kind::Default);
        QCOMPARE(screen.cell(0, 3).background.kind, TerminalColor::Kind::Default);
        QCOMPARE(screen.cell(0, 3).background.rgb, screen.defaultBackground());
    }

    void palette256Colours()
    {
        TerminalWidget terminal;
        terminal.feed("\x1b[38;5;196mX\x1b[48;5;21mY\x1b[0m\x1b[38;5;244mZ");
        const auto& screen = terminal.screen();
        QCOMPARE(screen.cell(0, 0).foreground.index, 196);
        QCOMPARE(screen.cell(0, 0).foreground.rgb, QColor(255, 0, 0));
        QCOMPARE(screen.cell(0, 1).background.index, 21);
        QCOMPARE(screen.cell(0, 1).background.rgb, QColor(0, 0, 255));
        QCOMPARE(screen.cell(0, 2).foreground.index, 244);
        QCOMPARE(screen.cell(0, 2).foreground.kind, TerminalColor::Kind::Indexed);
    }

    void trueColours()
    {
        TerminalWidget terminal;
        terminal.feed("\x1b[38;2;12;34;56mT\x1b[48;2;200;100;50mU");
        const auto& screen = terminal.screen();
        QCOMPARE(screen.cell(0, 0).foreground.kind, TerminalColor::Kind::Rgb);
        QCOMPARE(screen.cell(0, 0).foreground.rgb, QColor(12, 34, 56));
        QCOMPARE(screen.cell(0, 1).background.kind, TerminalColor::Kind::Rgb);
        QCOMPARE(screen.cell(0, 1).background.rgb, QColor(200, 100, 50));
        QCOMPARE(screen.cell(0, 1).foreground.rgb, QColor(12, 34, 56));
    }

    void textAttributes()
    {
        TerminalWidget terminal;
        terminal.feed("\x1b[1mb\x1b[0;3mi\x1b[0;4mu\x1b[0;7mr\x1b[0;9ms\x1b[0mn");
        const auto& screen = terminal.screen();
        QVERIFY(screen.cell(0, 0).bold && !screen.cell(0, 0).italic);
        QVERIFY(screen.cell(0, 1).italic && !screen.cell(0, 1).bold);
        QVERIFY(screen.cell(0, 2).underline && !screen.cell(0, 2).italic);
        QVERIFY(screen.cell(0, 3).reverse && !screen.cell(0, 3).underline);
        QVERIFY(screen.cell(0, 4).strike && !screen.cell(0, 4).reverse);
        const auto plain = screen.cell(0, 5);
        QVERIFY(!plain.bold && !plain.italic && !plain.underline && !plain.reverse &&
                !plain.strike);
        QCOMPARE(terminal.screenText().section(QLatin1Char('\n'), 0, 0), QStringLiteral("biursn"));
    }

    void wideCharactersTakeTwoCells()
    {
        TerminalWidget terminal;
        terminal.feed("a\xe4\xb8\xad\xe6\x96\x87"
                      "b"); // "a中文b"
        const auto& screen = terminal.screen();
        QCOMPARE(screen.cell(0, 1).text, QStringLiteral("中"));
        QCOMPARE(screen.cell(0, 1).width, 2);
        QCOMPARE(screen.cell(0, 2).width, 0);
        QCOMPARE(screen.cell(0, 2).text, QString());
        QCOMPARE(screen.cell(0, 3).text, QStringLiteral("文"));
        QCOMPARE(screen.cell(0, 5).text, QStringLiteral("b"));
        QCOMPARE(screen.cursor(), QPoint(6, 0));
        QCOMPARE(terminal.screenText().section(QLatin1Char('\n'), 0, 0), QStringLiteral("a中文b"));
    }

    void combiningMarksJoinTheirBase()
    {
        TerminalWidget terminal;
        terminal.feed("e\xcc\x81x"); // e + U+0301 COMBINING ACUTE ACCENT, x
        const auto& screen = terminal.screen();
        QCOMPARE(screen.cell(0, 0).text, QStringLiteral("e\u0301"));
        QCOMPARE(screen.cell(0, 1).text, QStringLiteral("x"));
        QCOMPARE(screen.cursor(), QPoint(2, 0));
    }

    void alternateScreenRestoresMainScreen()
    {
        TerminalWidget terminal;
        terminal.feed("main line\r\n$ ");
        terminal.feed("\x1b[?1049h\x1b[H\x1b[2Jfull-screen app");
        QVERIFY(terminal.screen().altScreen());
        QVERIFY(terminal.screenText().startsWith(QStringLiteral("full-screen app")));
        QVERIFY(!terminal.screenText().contains(QStringLiteral("main line")));
        for (int i = 0; i < 100; ++i)
            terminal.feed("scrolling in the alternate screen\r\n");
        QCOMPARE(terminal.scrollbackCount(), 0);
        terminal.feed("\x1b[?1049l");
        QVERIFY(!terminal.screen().altScreen());
        QCOMPARE(terminal.screenText().section(QLatin1Char('\n'), 0, 1),
                 QStringLiteral("main line\n$"));
        QVERIFY(!terminal.screenText().contains(QStringLiteral("full-screen")));
        QCOMPARE(terminal.screen().cursor(), QPoint(2, 1));
    }

    void scrollbackKeepsTenThousandLines()
    {
        TerminalWidget terminal;
        QCOMPARE(terminal.rows(), 24);
        QByteArray stream;
        for (int i = 0; i < 12'000; ++i)
            stream += "line " + QByteArray::number(i) + "\r\n";
        terminal.feed(stream);
        // 12,000 lines on a 24-row screen: 23 stay on screen, 11,977 were pushed off the top,
        // of which the newest 10,000 are kept.
        QCOMPARE(terminal.scrollbackCount(), 10'000);
        QCOMPARE(terminal.scrollbackLine(0), QStringLiteral("line 1977"));
        QCOMPARE(terminal.scrollbackLine(9'999), QStringLiteral("line 11976"));
        QCOMPARE(terminal.screenText().section(QLatin1Char('\n'), 0, 0),
                 QStringLiteral("line 11977"));
        QCOMPARE(terminal.verticalScrollBar()->maximum(), 10'000);
        QCOMPARE(terminal.verticalScrollBar()->value(), 10'000);

        // Shift+PgUp pages back through the scrollback without typing anything.
        QCOMPARE(keyBytes(terminal, Qt::Key_PageUp, Qt::ShiftModifier), QByteArray());
        QCOMPARE(terminal.verticalScrollBar()->value(), 10'000 - 24);
        QCOMPARE(keyBytes(terminal, Qt::Key_PageDown, Qt::ShiftModifier), QByteArray());
        QCOMPARE(terminal.verticalScrollBar()->value(), 10'000);
    }

    // Found by tests/fuzz/fuzz_terminal (corpus/terminal/tabs-and-resize): a screen full of
    // text with the cursor near the top, made smaller, scrolled the cursor's line away and left
    // libvterm's cursor on a negative row (here -8), outside the screen.
    void shrinkingKeepsTheCursorOnTheScreen()
    {
        sbw::TerminalScreen screen(40, 10);
        screen.feed("\x1b#8\x1b[2;1Hcursor line"); // DECALN fills the screen with E
        QCOMPARE(screen.cursor(), QPoint(11, 1));
        screen.resize(40, 2);
        // The line above the cursor went to the scrollback, the lines below it were cut.
        QCOMPARE(screen.scrollbackCount(), 1);
        QCOMPARE(screen.cursor(), QPoint(11, 0));
        const QString cursorLine = QStringLiteral("cursor line") + QString(29, QLatin1Char('E'));
        QCOMPARE(screen.screenText(), cursorLine + QLatin1Char('\n') + QString(40, QLatin1Char('E')));
        screen.feed("\r\n\x1b[2Knext");
        QCOMPARE(screen.cursor(), QPoint(4, 1));
        QCOMPARE(screen.lineText(screen.scrollbackCount() + 1), QStringLiteral("next"));
    }

    // Found by tests/fuzz/fuzz_terminal (crashes/terminal/rep-before-any-text): REP before any
    // printed character made libvterm loop forever, hanging the window's thread.
    void repeatBeforeAnyTextReturns()
    {
        sbw::TerminalScreen screen(20, 3);
        screen.feed("\x1b[b\x1b[5bx\x1b[3b");
        QCOMPARE(screen.screenText(), QStringLiteral("      xxxx\n\n"));
        QCOMPARE(screen.cursor(), QPoint(10, 0));
    }

    // Found by tests/fuzz/fuzz_terminal (crashes/terminal/unknown-status-request,
    // status-request-with-control-in-terminator, status-request-inside-another-string):
    // libvterm 0.1.4 crashed on status requests it does not know, however they reached it.
    void deviceControlStringsAreRemoved()
    {
        sbw::TerminalScreen screen(20, 3);
        QSignalSpy answers(&screen, &sbw::TerminalScreen::outputReady);
        screen.feed("a\x1bP$qx\x1b\\b\x1bP$q\x1b\\c\x1bP$");
        screen.feed("qmx\x1b\\d");
        screen.feed("\x1bP$qm\x1b\x1f\\e");      // an ESC followed by a control character
        screen.feed("\x1bPl\xff$qL\x1b\\f");     // a request inside another string
        screen.feed("\x1bP1;2|hidden\x18g");        // cancelled by CAN
        screen.feed("\x1bPhidden\x1b[1mh\x1b[0m"); // ended by another escape sequence
        screen.feed(QByteArray("\x1b\x00P$qx\x1b\\", 9)); // a control between ESC and P
        screen.feed("\x1b\xff\xffP$qx\x1b\\");       // invalid bytes between ESC and P
        screen.feed("\xc2");                          // DCS as a C1 control in UTF-8 (U+0090),
        screen.feed("\x90$qx\x1b\\");                // cut between two outputs
        // The invalid bytes stay (shown as U+FFFD), and a dropped C1 control leaves its text.
        QCOMPARE(screen.screenText(), QStringLiteral("abcdefgh\uFFFD\uFFFD$qx\n\n"));
        QCOMPARE(answers.count(), 0);
        // Known requests are still answered, also when cut between two outputs.
        screen.feed("\x1bP$");
        screen.feed("qr\x1b\\");
        QCOMPARE(answers.count(), 1);
        QCOMPARE(answers.at(0).at(0).toByteArray(), QByteArray("\x1bP1$r1;3r\x1b\\"));
        sbw::DcsScan scan;
        QCOMPARE(sbw::withoutDeviceControlStrings("x\x1bP$qm\x1b\\y\x1bPz\x1b\\w\x1b", scan),
                 QByteArray("x\x1bP$qm\x1b\\yw"));
        QCOMPARE(scan.held, QByteArray("\x1b"));
        sbw::C1Scan c1;
        QCOMPARE(sbw::withoutC1Controls("a\xc2\x9b" "31mb\xc2\xa0c\xc2", c1), QByteArray("a31mb\xc2\xa0c"));
        QCOMPARE(sbw::withoutC1Controls("\x9b" "d", c1), QByteArray("d"));
    }

    // Found by tests/fuzz/fuzz_terminal (crashes/terminal/scroll-region-below-the-screen): a
    // top margin below the last row of a smaller screen made libvterm 0.1.4 memmove a negative
    // size at the next scroll.
    void resizeResetsTheScrollRegion()
    {
        sbw::TerminalScreen screen(10, 10);
        screen.feed("\x1b[5r\x1b[3;2Hab");
        screen.resize(10, 2);
        QCOMPARE(screen.cursor(), QPoint(3, 1));
        screen.feed("\r\nc\r\nd");
        QCOMPARE(screen.screenText(), QStringLiteral("c\nd"));
    }

    // Found by tests/fuzz/fuzz_terminal (crashes/terminal/cursor-column-off-the-screen): a
    // double-height line (DECDHL) on a screen made one column wide has no columns for libvterm,
    // which then put the cursor on column -1.
    void doubleWidthLinesKeepTheCursorOnTheScreen()
    {
        sbw::TerminalScreen screen(20, 18);
        screen.feed("\x1b#3");
        screen.resize(1, 1);
        QCOMPARE(screen.cols(), sbw::TerminalScreen::kMinimumColumns);
        const auto onTheScreen = [&] {
            const QPoint cursor = screen.cursor();
            return cursor.y() == 0 && cursor.x() >= 0 && cursor.x() <= screen.cols();
        };
        for (const char* output : {"\x1b[X", "ab", "\x1b[5D", "\x1b#6c"}) {
            screen.feed(output);
            QVERIFY2(onTheScreen(), output);
        }
    }

    // Found by tests/fuzz/fuzz_terminal (crashes/terminal/seventeen-csi-arguments): libvterm
    // 0.1.4 wrote the 17th argument of a CSI sequence past its array.
    void csiSequencesKeepSixteenArguments()
    {
        sbw::TerminalScreen screen(20, 3);
        screen.feed(QByteArray("\x1b[") + QByteArray(20, ';'));
        screen.feed("1;31mred\x1b[0m");
        QCOMPARE(screen.screenText(), QStringLiteral("red\n\n"));
        sbw::CsiScan scan;
        QCOMPARE(sbw::limitedCsiArguments("\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18m x;y", scan),
                 QByteArray("\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;161718m x;y"));
        // A control inside the escape sequence leaves it a CSI for libvterm (ESC NUL [).
        QCOMPARE(sbw::limitedCsiArguments(QByteArray("\x1b\x00[", 3) + QByteArray(20, ';') + "m", scan),
                 QByteArray("\x1b\x00[", 3) + QByteArray(15, ';') + "m");
    }

    void osc52CannotWriteTheClipboard()
    {
        TerminalWidget terminal;
        QClipboard* clipboard = QGuiApplication::clipboard();
        clipboard->setText(QStringLiteral("the user's clipboard"));
        QSignalSpy spy(&terminal, &TerminalWidget::inputReady);
        terminal.feed("\x1b]52;c;aGFja2Vk\x07"
                      "ok");              // "hacked", base64
        terminal.feed("\x1b]52;c;?\x07"); // a read request must not answer
        QCOMPARE(clipboard->text(), QStringLiteral("the user's clipboard"));
        QCOMPARE(terminal.screenText().section(QLatin1Char('\n'), 0, 0), QStringLiteral("ok"));
        QCOMPARE(typed(spy), QByteArray());
    }

    void titleIsSanitisedAndOnlySignalled()
    {
        TerminalWidget terminal;
        QSignalSpy spy(&terminal, &TerminalWidget::titleChanged);
        terminal.feed("\x1b]2;build \xe2\x80\xaegnp.exe\xe2\x80\xac   done\x07");
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("build gnp.exe done"));
        QCOMPARE(terminal.windowTitle(), QString());

        terminal.feed("\x1b]0;" + QByteArray(500, 'x') + "\x07");
        QCOMPARE(spy.count(), 2);
        const QString capped = spy.at(1).at(0).toString();
        QCOMPARE(capped.size(), sbw::kMaxTerminalTitleChars);
        QCOMPARE(capped,
                 QString(sbw::kMaxTerminalTitleChars - 1, QLatin1Char('x')) + QChar(0x2026));
    }

    void bracketedPasteCannotBeEndedByThePastedText()
    {
        TerminalWidget terminal;
        terminal.feed("\x1b[?2004h");
        QGuiApplication::clipboard()->setText(
            QStringLiteral("ls\x1b[201~; rm -rf /tmp/x\x03\x04\r\nnext\nlast\u009b\t."));
        const QByteArray sent =
            keyBytes(terminal, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(sent, QByteArray("\x1b[200~ls[201~; rm -rf /tmp/x\rnext\rlast\t.\x1b[201~"));

        terminal.feed("\x1b[?2004l");
        QGuiApplication::clipboard()->setText(QStringLiteral("a\nb\x1b"));
        QCOMPARE(keyBytes(terminal, Qt::Key_V, Qt::ControlModifier | Qt::ShiftModifier),
                 QByteArray("a\rb"));
    }

    void keysBecomeTerminalInput()
    {
        TerminalWidget terminal;
        QCOMPARE(keyBytes(terminal, Qt::Key_Up), QByteArray("\x1b[A"));
        QCOMPARE(keyBytes(terminal, Qt::Key_Left), QByteArray("\x1b[D"));
        QCOMPARE(keyBytes(terminal, Qt::Key_Home), QByteArray("\x1b[H"));
        QCOMPARE(keyBytes(terminal, Qt::Key_End), QByteArray("\x1b[F"));
        QCOMPARE(keyBytes(terminal, Qt::Key_PageUp), QByteArray("\x1b[5~"));
        QCOMPARE(keyBytes(terminal, Qt::Key_PageDown), QByteArray("\x1b[6~"));
        QCOMPARE(keyBytes(terminal, Qt::Key_F1), QByteArray("\x1bOP"));
        QCOMPARE(keyBytes(terminal, Qt::Key_F5), QByteArray("\x1b[15~"));
        QCOMPARE(keyBytes(terminal, Qt::Key_F12), QByteArray("\x1b[24~"));
        QCOMPARE(keyBytes(terminal, Qt::Key_Return), QByteArray("\r"));
        QCOMPARE(keyBytes(terminal, Qt::Key_Backspace), QByteArray("\x7f"));
        QCOMPARE(keyBytes(terminal, Qt::Key_Tab), QByteArray("\t"));
        QCOMPARE(keyBytes(terminal, Qt::Key_C, Qt::ControlModifier), QByteArray("\x03"));
        QCOMPARE(keyBytes(terminal, Qt::Key_D, Qt::ControlModifier), QByteArray("\x04"));
        QCOMPARE(keyBytes(terminal, Qt::Key_BracketLeft, Qt::ControlModifier), QByteArray("\x1b"));
        QCOMPARE(keyBytes(terminal, Qt::Key_X, Qt::AltModifier), QByteArray("\x1bx"));
        QCOMPARE(keyBytes(terminal, Qt::Key_B, Qt::ControlModifier | Qt::AltModifier),
                 QByteArray("\x1b\x02"));
        QCOMPARE(keyBytes(terminal, Qt::Key_Up, Qt::ControlModifier), QByteArray("\x1b[1;5A"));
        QCOMPARE(keyBytes(terminal, Qt::Key_A), QByteArray("a"));
        QSignalSpy text(&terminal, &TerminalWidget::inputReady);
        QTest::sendKeyEvent(QTest::Click, &terminal, Qt::Key_A, QStringLiteral("A"),
                            Qt::ShiftModifier);
        QTest::sendKeyEvent(QTest::Click, &terminal, Qt::Key_Eacute, QStringLiteral("é"),
                            Qt::NoModifier);
        QCOMPARE(typed(text), QByteArray("A\xc3\xa9"));

        // Application cursor keys (DECCKM, as set by vi and less) change the arrows.
        terminal.feed("\x1b[?1h");
        QCOMPARE(keyBytes(terminal, Qt::Key_Up), QByteArray("\x1bOA"));
    }

    void windowShortcutsReachTheWindow()
    {
        // Ctrl+Shift shortcuts of the window fire while the terminal has focus; the terminal's
        // own Ctrl+Shift+C and every other key stay with the program in the terminal.
        QWidget window;
        auto* terminal = new TerminalWidget(&window);
        auto* newTerminal = new QAction(&window);
        newTerminal->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
        auto* copyLike = new QAction(&window);
        copyLike->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
        auto* open = new QAction(&window);
        open->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
        window.addActions({newTerminal, copyLike, open});
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        terminal->setFocus();
        QSignalSpy newTriggered(newTerminal, &QAction::triggered);
        QSignalSpy copyTriggered(copyLike, &QAction::triggered);
        QSignalSpy openTriggered(open, &QAction::triggered);
        QSignalSpy input(terminal, &TerminalWidget::inputReady);
        QTest::keyClick(terminal, Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(newTriggered.size(), 1);
        QTest::keyClick(terminal, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(copyTriggered.size(), 0);
        QTest::keyClick(terminal, Qt::Key_O, Qt::ControlModifier);
        QCOMPARE(openTriggered.size(), 0);
        QCOMPARE(typed(input), QByteArray("\x0f")); // Ctrl+O, for nano and friends
    }

    void terminalTabsAlwaysOfferANewTerminal()
    {
        // With no tab open the pane says so and offers one (a tab widget without tabs would
        // hide its corner button and leave a blank pane).
        sbw::TerminalTabs tabs(QStringLiteral("test"), [] {
            return sbw::Expected<std::shared_ptr<sbw::GuestSession>>(
                sbw::makeError(QStringLiteral("no guest here")));
        }, sbw::TerminalTab::Lifetime::Detachable);
        tabs.resize(600, 400);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        auto* offer = tabs.findChild<QPushButton*>(QStringLiteral("newTerminalButton"));
        QVERIFY(offer);
        QVERIFY(offer->isVisible());
        QCOMPARE(tabs.count(), 0);
        if (const QByteArray dir = qgetenv("SBW_SCREENSHOT_DIR"); !dir.isEmpty())
            tabs.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/terminal-none-open.png"));
        QSignalSpy failed(&tabs, &sbw::TerminalTabs::openFailed);
        offer->click();
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.first().first().toString(), QStringLiteral("no guest here"));
        QVERIFY(offer->isVisible());
    }

    void mouseSelectionIsCopied()
    {
        TerminalWidget terminal;
        terminal.resize(terminal.sizeHint());
        terminal.show();
        QVERIFY(QTest::qWaitForWindowExposed(&terminal));
        terminal.feed("hello world\r\nsecond line");
        const QSize cell = terminal.cellSize();
        const auto at = [cell](int col, int row) {
            return QPointF(col * cell.width() + cell.width() / 2.0,
                           row * cell.height() + cell.height() / 2.0);
        };
        QWidget* viewport = terminal.viewport();
        QMouseEvent press(QEvent::MouseButtonPress, at(6, 0), viewport->mapToGlobal(at(6, 0)),
                          Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &press);
        QMouseEvent move(QEvent::MouseMove, at(5, 1), viewport->mapToGlobal(at(5, 1)), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &move);
        QMouseEvent release(QEvent::MouseButtonRelease, at(5, 1), viewport->mapToGlobal(at(5, 1)),
                            Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &release);
        QCOMPARE(terminal.selectedText(), QStringLiteral("world\nsecond"));

        QGuiApplication::clipboard()->clear();
        QCOMPARE(keyBytes(terminal, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier),
                 QByteArray());
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("world\nsecond"));
    }

    void mouseGoesToProgramsThatAskForIt()
    {
        TerminalWidget terminal;
        terminal.resize(terminal.sizeHint());
        terminal.show();
        QVERIFY(QTest::qWaitForWindowExposed(&terminal));
        const QSize cell = terminal.cellSize();
        const QPoint at(3 * cell.width() + 1, 2 * cell.height() + 1); // column 3, row 2
        QWidget* viewport = terminal.viewport();

        // No mouse mode: a click selects, nothing is sent.
        QSignalSpy spy(&terminal, &TerminalWidget::inputReady);
        QTest::mouseClick(viewport, Qt::LeftButton, {}, at);
        QCOMPARE(typed(spy), QByteArray());

        terminal.feed("\x1b[?1000h\x1b[?1006h"); // click reports, SGR encoding (as vim asks)
        QTest::mouseClick(viewport, Qt::LeftButton, {}, at);
        QCOMPARE(typed(spy), QByteArray("\x1b[<0;4;3M\x1b[<0;4;3m"));
        spy.clear();
        // Shift keeps selection for the user.
        QTest::mouseClick(viewport, Qt::LeftButton, Qt::ShiftModifier, at);
        QCOMPARE(typed(spy), QByteArray());

        terminal.feed("\x1b[?1000l\x1b[?1049h"); // alternate screen, no mouse: wheel = arrows
        QWheelEvent wheel(at, viewport->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(viewport, &wheel);
        QCOMPARE(typed(spy), QByteArray("\x1b[A\x1b[A\x1b[A"));
    }

    void resizeChangesTheGrid()
    {
        TerminalWidget terminal;
        terminal.resize(terminal.sizeHint());
        terminal.show();
        QVERIFY(QTest::qWaitForWindowExposed(&terminal));
        QTRY_COMPARE(terminal.cols(), 80);
        QCOMPARE(terminal.rows(), 24);

        QSignalSpy spy(&terminal, &TerminalWidget::sizeChanged);
        const QSize cell = terminal.cellSize();
        terminal.resize(terminal.sizeHint() + QSize(20 * cell.width(), -4 * cell.height()));
        QTRY_COMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 100);
        QCOMPARE(spy.at(0).at(1).toInt(), 20);
        QCOMPARE(terminal.cols(), 100);
        QCOMPARE(terminal.rows(), 20);

        // A resize within the same cell grid is no window-change.
        terminal.resize(terminal.size() + QSize(1, 1));
        QTest::qWait(50);
        QCOMPARE(spy.count(), 1);
    }

    void paintsCellColours()
    {
        // Colourful content as `ls --color`, a 256-colour chart and CJK text produce it.
        TerminalWidget terminal;
        terminal.resize(terminal.sizeHint());
        terminal.show();
        QVERIFY(QTest::qWaitForWindowExposed(&terminal));
        QByteArray stream = "\x1b]0;demo\x07$ ls --color\r\n"
                            "\x1b[0m\x1b[01;34mbin\x1b[0m  \x1b[01;32mbuild.sh\x1b[0m  "
                            "\x1b[01;36mlink\x1b[0m  notes.txt  \x1b[30;42mshared\x1b[0m\r\n";
        for (int row = 0; row < 8; ++row) {
            for (int col = 0; col < 32; ++col)
                stream += "\x1b[48;5;" + QByteArray::number(row * 32 + col) + "m  ";
            stream += "\x1b[0m\r\n";
        }
        stream += "\x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[4munderline\x1b[0m "
                  "\x1b[7mreverse\x1b[0m \x1b[38;2;255;128;0mtruecolor\x1b[0m "
                  "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97 cafe\xcc\x81\r\n$ ";
        terminal.feed(stream);
        const QImage image = terminal.viewport()->grab().toImage();
        const QString path = QDir::temp().filePath(QStringLiteral("tst_terminalwidget.png"));
        image.save(path);
        qInfo("rendered: %s", qPrintable(path));

        // Row 2 is the chart's first row: two cells per colour, palette 0..31.
        const QSize cell = terminal.cellSize();
        const auto centre = [cell](int col, int row) {
            return QPoint(col * cell.width() + cell.width() / 2,
                          row * cell.height() + cell.height() / 2);
        };
        QCOMPARE(image.pixelColor(centre(2 * 9, 2)), terminal.screen().cell(2, 18).background.rgb);
        QCOMPARE(image.pixelColor(centre(2 * 20, 3)), terminal.screen().cell(3, 40).background.rgb);
        QCOMPARE(image.pixelColor(centre(40, 1)), terminal.screen().defaultBackground());
    }
};

QTEST_MAIN(TestTerminalWidget)
#include "tst_terminalwidget.moc"
