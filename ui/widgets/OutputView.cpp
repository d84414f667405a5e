#include "widgets/OutputView.h"

#include "base/VisibleText.h"
#include "widgets/MonospaceFont.h"

#include <QEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

namespace sbw {
namespace {

/// True when the UTF-16 unit `c` can start a hidden character (a cheap pre-filter that lets
/// printable ASCII and most other text through without a code point lookup).
bool mayBeHidden(char16_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c || (c >= 0x200e && c <= 0x206f) ||
           c >= 0xd800;
}

} // namespace

OutputView::OutputView(QWidget* parent) : QPlainTextEdit(parent)
{
    setObjectName(QStringLiteral("outputView"));
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setFont(monospaceFont());
    setPlaceholderText(tr("Output of the script appears here."));
    // A safety net behind our own line cap, which stops appending first.
    setMaximumBlockCount(m_maxLines + 16);
    updateFormats();
}

void OutputView::setLimits(qsizetype maxChars, int maxLines)
{
    m_maxChars = qMax<qsizetype>(1, maxChars);
    m_maxLines = qMax(1, maxLines);
    setMaximumBlockCount(m_maxLines + 16);
}

void OutputView::clearOutput()
{
    clear();
    m_stdoutDecoder.reset();
    m_stderrDecoder.reset();
    m_shownChars = 0;
    m_shownLines = 0;
    m_lineChars = 0;
    m_totalBytes = 0;
    m_truncated = false;
    m_noteEndsLine = false;
    m_notePosition = -1;
    m_noteLength = 0;
}

GuestTextDecoder& OutputView::decoder(OutputStream stream)
{
    return stream == OutputStream::Stderr ? m_stderrDecoder : m_stdoutDecoder;
}

void OutputView::appendOutput(OutputStream stream, QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return;
    m_totalBytes += bytes.size();
    if (m_truncated) {
        updateTruncationNote();
        return;
    }
    appendDecoded(decoder(stream).decode(bytes), stream);
}

void OutputView::endOutput()
{
    for (const OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr}) {
        const QString tail = decoder(stream).finish();
        if (!m_truncated)
            appendDecoded(tail, stream);
    }
}

void OutputView::appendDecoded(const QString& text, OutputStream stream)
{
    if (text.isEmpty())
        return;
    QScrollBar* bar = verticalScrollBar();
    const bool follow = bar->value() == bar->maximum();

    const QTextCharFormat& plain = stream == OutputStream::Stderr ? m_stderrFormat : m_stdoutFormat;
    const QTextCharFormat& escape =
        stream == OutputStream::Stderr ? m_stderrEscapeFormat : m_stdoutEscapeFormat;

    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    cursor.beginEditBlock();
    if (m_noteEndsLine) {
        // Output after a note starts on a line of its own.
        cursor.insertText(QStringLiteral("\n"), plain);
        m_noteEndsLine = false;
    }
    const QStringView view(text);
    qsizetype runStart = 0;
    bool fits = true;
    for (qsizetype i = 0; i < view.size() && fits;) {
        const char16_t unit = view[i].unicode();
        if (!mayBeHidden(unit)) {
            ++i;
            continue;
        }
        char32_t codePoint = unit;
        qsizetype length = 1;
        if (QChar::isHighSurrogate(unit) && i + 1 < view.size() &&
            QChar::isLowSurrogate(view[i + 1].unicode())) {
            codePoint = QChar::surrogateToUcs4(unit, view[i + 1].unicode());
            length = 2;
        }
        if (!isHiddenCharacter(codePoint)) {
            i += length;
            continue;
        }
        fits = insertCapped(cursor, view.sliced(runStart, i - runStart), plain) &&
               insertCapped(cursor, visibleForm(codePoint), escape);
        i += length;
        runStart = i;
    }
    if (fits)
        fits = insertCapped(cursor, view.sliced(runStart), plain);
    if (!fits)
        showTruncationNote();
    cursor.endEditBlock();

    if (follow)
        bar->setValue(bar->maximum());
}

bool OutputView::insertCapped(QTextCursor& cursor, QStringView text, const QTextCharFormat& format)
{
    qsizetype pos = 0;
    while (pos < text.size()) {
        if (m_shownChars >= m_maxChars || m_shownLines >= m_maxLines)
            return false;
        // The next piece ends after the next newline, or where the line reaches its length cap.
        const qsizetype newline = text.indexOf(u'\n', pos);
        qsizetype end = newline < 0 ? text.size() : newline + 1;
        const qsizetype content = (newline < 0 ? end : newline) - pos;
        const bool wrap = content > kMaxLineChars - m_lineChars;
        if (wrap)
            end = pos + (kMaxLineChars - m_lineChars);
        qsizetype length = qMin(end - pos, m_maxChars - m_shownChars);
        const bool capped = length < end - pos;
        if (length > 0 && pos + length < text.size() && text[pos + length - 1].isHighSurrogate())
            --length; // never split a surrogate pair
        if (length > 0)
            cursor.insertText(text.sliced(pos, length).toString(), format);
        m_shownChars += length;
        if (length > 0 && text[pos + length - 1] == u'\n') {
            ++m_shownLines;
            m_lineChars = 0;
        } else {
            m_lineChars += length;
        }
        pos += length;
        if (capped)
            return pos == text.size();
        if (wrap) {
            // Qt lays a block out as a whole, in time growing with the square of its length:
            // break very long lines, marked, so one endless line cannot stall the GUI thread.
            cursor.insertText(QStringLiteral("\u21a9\n"), m_wrapFormat);
            ++m_shownLines;
            m_lineChars = 0;
        }
    }
    return true;
}

QString OutputView::truncationNoteText() const
{
    QString size;
    if (m_totalBytes < 1024)
        size = m_totalBytes == 1 ? tr("1 byte") : tr("%1 bytes").arg(m_totalBytes);
    else if (m_totalBytes < 1024 * 1024)
        size = tr("%1 KiB").arg(QString::number(double(m_totalBytes) / 1024.0, 'f', 1));
    else
        size = tr("%1 MiB").arg(QString::number(double(m_totalBytes) / (1024.0 * 1024.0), 'f', 1));
    return tr("[output truncated in view: %1 total; full output kept]").arg(size);
}

void OutputView::showTruncationNote()
{
    m_truncated = true;
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    if (!cursor.atBlockStart())
        cursor.insertText(QStringLiteral("\n"), m_noteFormat);
    m_lineChars = 0;
    m_notePosition = cursor.position();
    const QString note = truncationNoteText();
    cursor.insertText(note, m_noteFormat);
    m_noteLength = int(note.size());
}

void OutputView::updateTruncationNote()
{
    const QString note = truncationNoteText();
    QTextCursor cursor(document());
    cursor.setPosition(m_notePosition);
    cursor.setPosition(m_notePosition + m_noteLength, QTextCursor::KeepAnchor);
    if (cursor.selectedText() == note)
        return;
    cursor.insertText(note, m_noteFormat);
    m_noteLength = int(note.size());
}

void OutputView::appendNote(const QString& text)
{
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::End);
    if (!cursor.atBlockStart())
        cursor.insertText(QStringLiteral("\n"), m_noteFormat);
    cursor.insertText(makeVisible(text), m_noteFormat);
    m_noteEndsLine = true;
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

QString OutputView::shownText() const
{
    return document()->toPlainText();
}

QTextCharFormat OutputView::streamFormat(OutputStream stream) const
{
    return stream == OutputStream::Stderr ? m_stderrFormat : m_stdoutFormat;
}

QTextCharFormat OutputView::escapeFormat(OutputStream stream) const
{
    return stream == OutputStream::Stderr ? m_stderrEscapeFormat : m_stdoutEscapeFormat;
}

QTextCharFormat OutputView::noteFormat() const
{
    return m_noteFormat;
}

void OutputView::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateFormats();
}

void OutputView::updateFormats()
{
    const QPalette& pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;

    m_stdoutFormat = QTextCharFormat();
    m_stdoutFormat.setForeground(pal.color(QPalette::Text));
    m_stderrFormat = QTextCharFormat();
    m_stderrFormat.setForeground(dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xb3, 0x1d, 0x1d));

    QColor tint = pal.color(QPalette::Text);
    tint.setAlpha(36);
    m_stdoutEscapeFormat = m_stdoutFormat;
    m_stdoutEscapeFormat.setBackground(tint);
    m_stderrEscapeFormat = m_stderrFormat;
    m_stderrEscapeFormat.setBackground(tint);

    m_wrapFormat = QTextCharFormat();
    m_wrapFormat.setForeground(pal.color(QPalette::PlaceholderText));
    m_wrapFormat.setBackground(tint);

    m_noteFormat = QTextCharFormat();
    m_noteFormat.setForeground(pal.color(QPalette::PlaceholderText));
    m_noteFormat.setFontItalic(true);
}

} // namespace sbw
