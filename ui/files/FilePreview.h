#pragma once

#include <QByteArray>
#include <QImage>
#include <QWidget>

namespace sbw {

/// A read-only look at one guest file's bytes: PNG, JPEG and SVG images as a picture, anything
/// else as text. Text is guest data: it is decoded as UTF-8 (invalid bytes as U+FFFD) and
/// control, bidi and other hidden characters are shown escaped (VisibleText), so escape
/// sequences never act; at most kMaxTextBytes are shown, with a note when the file is longer.
class FilePreview : public QWidget
{
    Q_OBJECT

public:
    enum class Kind
    {
        Image,
        Text
    };
    static constexpr qsizetype kMaxTextBytes = 2 * 1024 * 1024;

    /// Image when the bytes start with the PNG or JPEG signature, or the name ends in ".svg"
    /// and they render as SVG; Text otherwise.
    static Kind kindOf(const QString& name, const QByteArray& bytes);
    /// The picture of PNG/JPEG/SVG bytes; a null image when they do not decode.
    static QImage decodeImage(const QString& name, const QByteArray& bytes);
    /// The text shown for `bytes`: decoded, escaped, cut at kMaxTextBytes with a note.
    static QString visibleText(const QByteArray& bytes);

    /// `name` is the file's name as shown (already made visible).
    FilePreview(const QString& name, const QByteArray& bytes, QWidget* parent = nullptr);

    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

} // namespace sbw
