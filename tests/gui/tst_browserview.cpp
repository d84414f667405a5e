// BrowserView without a guest: the frame drawn to fit, and the person's input turned into the
// page's terms (CSS pixels, key names) only while the view is interactive.

#include "browser/BrowserView.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>

using sbw::BrowserView;

class TestBrowserView : public QObject
{
    Q_OBJECT

    static QImage page()
    {
        QImage image(1280, 800, QImage::Format_RGB32);
        image.fill(QColor(0x20, 0x50, 0xc0));
        return image;
    }

private Q_SLOTS:
    void clicksMapToThePageOnlyWhileInteractive()
    {
        BrowserView view;
        view.setFixedSize(800, 400); // the 1280 × 800 frame fits as 640 × 400, 80 px from the left
        view.setFrame(page(), QSizeF(1280, 800));
        view.show();
        QCOMPARE(view.frameRect(), QRectF(80, 0, 640, 400));
        QSignalSpy clicks(&view, &BrowserView::clicked);

        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(80 + 125, 160));
        QCOMPARE(clicks.size(), 0); // watching: no input reaches the page

        view.setInteractive(true);
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(80 + 125, 160));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(40, 160));       // beside the frame
        QTest::mouseClick(&view, Qt::RightButton, {}, QPoint(80 + 125, 160)); // not a left click
        QCOMPARE(clicks.size(), 1);
        QCOMPARE(clicks.at(0).at(0).toPointF(), QPointF(250, 320));

        // A frame of another scale (a page zoomed by its device): CSS pixels, not image pixels.
        view.setFrame(page(), QSizeF(640, 400));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(80 + 320, 200));
        QCOMPARE(clicks.at(1).at(0).toPointF(), QPointF(320, 200));
    }

    void keysBecomeTextOrKeyNames()
    {
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* before = new QLineEdit(&window);
        auto* view = new BrowserView(&window);
        auto* after = new QLineEdit(&window);
        layout->addWidget(before);
        layout->addWidget(view);
        layout->addWidget(after);
        window.show();
        QSignalSpy typed(view, &BrowserView::typed);
        QSignalSpy keys(view, &BrowserView::keyPressed);

        QTest::keyClicks(view, QStringLiteral("ab"));
        QCOMPARE(typed.size(), 0); // not interactive: nothing goes to the page

        view->setInteractive(true);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QCOMPARE(QApplication::focusWidget(), view);
        QTest::keyClicks(view, QStringLiteral("Zo"));
        QKeyEvent umlaut(QEvent::KeyPress, Qt::Key_unknown, Qt::NoModifier, QStringLiteral("ë")); // a composed key
        QApplication::sendEvent(view, &umlaut);
        QTest::keyClicks(view, QStringLiteral(" 1"));
        QTest::keyClick(view, Qt::Key_Return);
        QTest::keyClick(view, Qt::Key_Tab); // to the page, not to the next field
        QTest::keyClick(view, Qt::Key_Left);
        QTest::keyClick(view, Qt::Key_Backspace);
        QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier); // the window's shortcut, not the page's
        QStringList texts;
        for (const QList<QVariant>& args : typed)
            texts << args.at(0).toString();
        QCOMPARE(texts, QStringList({QStringLiteral("Z"), QStringLiteral("o"), QStringLiteral("ë"), QStringLiteral(" "), QStringLiteral("1")}));
        QStringList names;
        for (const QList<QVariant>& args : keys)
            names << args.at(0).toString();
        QCOMPARE(names, QStringList({QStringLiteral("Enter"), QStringLiteral("Tab"), QStringLiteral("ArrowLeft"), QStringLiteral("Backspace")}));
        QCOMPARE(QApplication::focusWidget(), view);
    }
};

QTEST_MAIN(TestBrowserView)
#include "tst_browserview.moc"
