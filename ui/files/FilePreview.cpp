#include "files/FilePreview.h"

#include "base/GuestTextDecoder.h"
#include "base/VisibleText.h"
#include "widgets/MonospaceFont.h"

#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSvgRenderer>
#include <QVBoxLayout>

namespace sbw {
namespace {

bool isPng(const QByteArray& bytes)
{
    return bytes.startsWith("\x89PNG\r\n\x1a\n");
}

bool isJpeg(const QByteArray& bytes)
{
    return bytes.startsWith("\xff\xd8\xff");
}

bool isSvgName(const QString& name)
{
    return name.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive);
}

} // namespace

QImage FilePreview::decodeImage(const QString& name, const QByteArray& bytes)
{
    if (isPng(bytes))
        return QImage::fromData(bytes, "PNG");
    if (isJpeg(bytes))
        return QImage::fromData(bytes, "JPEG");
    if (isSvgName(name)) {
        QSvgRenderer renderer(bytes);
        if (!renderer.isValid())
            return {};
        const QSize size = renderer.defaultSize().isValid()
                               ? renderer.defaultSize().boundedTo(QSize(4096, 4096))
                               : QSize(512, 512);
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        renderer.render(&painter);
        return image;
    }
    return {};
}

FilePreview::Kind FilePreview::kindOf(const QString& name, const QByteArray& bytes)
{
    if (isPng(bytes) || isJpeg(bytes) || (isSvgName(name) && !decodeImage(name, bytes).isNull()))
        return Kind::Image;
    return Kind::Text;
}

QString FilePreview::visibleText(const QByteArray& bytes)
{
    GuestTextDecoder decoder;
    const QByteArrayView shown = QByteArrayView(bytes).first(std::min(bytes.size(), kMaxTextBytes));
    QString text = decoder.decode(shown);
    text += decoder.finish();
    // Line breaks and tabs stay as they are; everything else hidden is escaped.
    QString visible;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (i > 0)
            visible += QLatin1Char('\n');
        visible += makeVisible(lines[i]);
    }
    if (bytes.size() > kMaxTextBytes)
        visible += tr("\n[preview ends here: the file has %1 bytes; download it for the rest]")
                       .arg(bytes.size());
    return visible;
}

FilePreview::FilePreview(const QString& name, const QByteArray& bytes, QWidget* parent)
    : QWidget(parent), m_kind(kindOf(name, bytes))
{
    setWindowTitle(tr("%1 — preview").arg(name));
    auto* layout = new QVBoxLayout(this);
    auto* caption = new QLabel(tr("%1 · %2 bytes").arg(name).arg(bytes.size()), this);
    caption->setTextFormat(Qt::PlainText);
    layout->addWidget(caption);
    if (m_kind == Kind::Image) {
        const QImage image = decodeImage(name, bytes);
        auto* picture = new QLabel(this);
        picture->setObjectName(QStringLiteral("imagePreview"));
        picture->setPixmap(QPixmap::fromImage(image));
        picture->setAlignment(Qt::AlignCenter);
        caption->setText(caption->text() + tr(" · %1 × %2 px").arg(image.width()).arg(image.height()));
        auto* scroll = new QScrollArea(this);
        scroll->setWidget(picture);
        scroll->setAlignment(Qt::AlignCenter);
        layout->addWidget(scroll, 1);
    } else {
        auto* text = new QPlainTextEdit(this);
        text->setObjectName(QStringLiteral("textPreview"));
        text->setReadOnly(true);
        text->setLineWrapMode(QPlainTextEdit::NoWrap);
        text->setFont(monospaceFont());
        text->setPlainText(visibleText(bytes));
        layout->addWidget(text, 1);
    }
}

} // namespace sbw
