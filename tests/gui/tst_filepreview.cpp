// FilePreview without a guest: which bytes are pictures, and how text from a guest is shown
// (escaped, never interpreted; long files cut with a note).

#include "files/FilePreview.h"

#include <QBuffer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QtTest>

using sbw::FilePreview;

namespace {

QByteArray encoded(const QImage& image, const char* format)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, format);
    return bytes;
}

} // namespace

class TestFilePreview : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void picturesAreRecognisedBySignature()
    {
        QImage image(16, 8, QImage::Format_RGB32);
        image.fill(Qt::red);
        const QByteArray png = encoded(image, "PNG");
        const QByteArray jpeg = encoded(image, "JPEG");
        QCOMPARE(FilePreview::kindOf(QStringLiteral("chart.dat"), png), FilePreview::Kind::Image);
        QCOMPARE(FilePreview::kindOf(QStringLiteral("photo"), jpeg), FilePreview::Kind::Image);
        QCOMPARE(FilePreview::decodeImage(QStringLiteral("x"), png).size(), QSize(16, 8));
        // A name is not enough: text called .png is text.
        QCOMPARE(FilePreview::kindOf(QStringLiteral("fake.png"), "hello"), FilePreview::Kind::Text);
    }

    void svgRendersAtItsSize()
    {
        const QByteArray svg = "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'>"
                               "<rect width='40' height='20' fill='blue'/></svg>";
        QCOMPARE(FilePreview::kindOf(QStringLiteral("logo.svg"), svg), FilePreview::Kind::Image);
        const QImage image = FilePreview::decodeImage(QStringLiteral("logo.svg"), svg);
        QCOMPARE(image.size(), QSize(40, 20));
        QCOMPARE(QColor(image.pixel(20, 10)), QColor(Qt::blue));
        QCOMPARE(FilePreview::kindOf(QStringLiteral("broken.svg"), "<svg"), FilePreview::Kind::Text);
    }

    void textIsEscapedNotInterpreted()
    {
        const QByteArray bytes = "plain\n\x1b[2Jred\x1b[31m\tx\xff\n\xe2\x80\xae" "evil\n";
        QCOMPARE(FilePreview::visibleText(bytes),
                 QStringLiteral("plain\n\\x1b[2Jred\\x1b[31m\tx\uFFFD\n<U+202E>evil\n"));
        FilePreview preview(QStringLiteral("esc.txt"), bytes);
        QCOMPARE(preview.kind(), FilePreview::Kind::Text);
        auto* text = preview.findChild<QPlainTextEdit*>(QStringLiteral("textPreview"));
        QVERIFY(text && text->isReadOnly());
        QCOMPARE(text->toPlainText(), FilePreview::visibleText(bytes));
    }

    void longTextIsCutWithANote()
    {
        const QByteArray bytes(FilePreview::kMaxTextBytes + 10, 'a');
        const QString shown = FilePreview::visibleText(bytes);
        QVERIFY(shown.startsWith(QString(int(FilePreview::kMaxTextBytes), QLatin1Char('a')) + QLatin1Char('\n')));
        QVERIFY(shown.endsWith(QStringLiteral("[preview ends here: the file has %1 bytes; download it for the rest]")
                                   .arg(bytes.size())));
    }

    void imagePreviewShowsThePicture()
    {
        QImage image(30, 10, QImage::Format_RGB32);
        image.fill(Qt::green);
        FilePreview preview(QStringLiteral("pic.png"), encoded(image, "PNG"));
        QCOMPARE(preview.kind(), FilePreview::Kind::Image);
        auto* picture = preview.findChild<QLabel*>(QStringLiteral("imagePreview"));
        QVERIFY(picture);
        QCOMPARE(picture->pixmap().size(), QSize(30, 10));
    }
};

QTEST_MAIN(TestFilePreview)
#include "tst_filepreview.moc"
