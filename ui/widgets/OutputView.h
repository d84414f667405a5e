#pragma once

#include "base/GuestTextDecoder.h"
#include "run/RunController.h"

#include <QPlainTextEdit>
#include <QTextCharFormat>

namespace sbw {

/// Read-only view of a run's stdout and stderr, interleaved in arrival order: stdout in the
/// normal text colour, stderr in red, workbench notes in grey italics.
///
/// Guest output is untrusted. Each stream has its own stateful UTF-8 decoder (invalid bytes
/// show as U+FFFD, characters split across chunks are joined), and control, bidi and other
/// hidden characters are shown escaped on a tinted background (ESC as "\x1b", U+202E as
/// "<U+202E>"), so escape sequences never act.
///
/// A line longer than kMaxLineChars is broken, each break marked with "↩" (U+21A9), since Qt's
/// layout time grows with the square of a line's length.
///
/// The view holds at most maxChars() characters and maxLines() lines of output: beyond that
/// it stops appending and shows "[output truncated in view: N MiB total; full output kept]",
/// updating N as bytes keep arriving. Bytes past the cap are only counted, never decoded, so a
/// script printing hundreds of megabytes costs the GUI thread almost nothing.
class OutputView : public QPlainTextEdit
{
    Q_OBJECT

public:
    static constexpr qsizetype kDefaultMaxChars = 2 * 1024 * 1024;
    static constexpr int kDefaultMaxLines = 50'000;
    /// Longer lines are broken into blocks of this many characters, each marked with "↩".
    static constexpr qsizetype kMaxLineChars = 4096;

    explicit OutputView(QWidget* parent = nullptr);

    /// Changes the caps; takes effect from the next clearOutput().
    void setLimits(qsizetype maxChars, int maxLines);
    qsizetype maxChars() const { return m_maxChars; }
    int maxLines() const { return m_maxLines; }

    /// Appends a chunk of one stream (one outputReceived() batch).
    void appendOutput(sbw::OutputStream stream, QByteArrayView bytes);
    /// Ends both streams: an incomplete UTF-8 sequence left at the end shows as U+FFFD.
    void endOutput();
    /// Appends a line from the workbench itself (not from the guest) on a line of its own;
    /// output that follows starts on the next line.
    void appendNote(const QString& text);
    /// Empties the view and resets decoders, counters and the truncation note.
    void clearOutput();

    /// The text shown, as plain text (escapes in their visible form, the note included).
    QString shownText() const;
    /// Bytes received from both streams since clearOutput(), shown or not.
    qint64 totalBytes() const { return m_totalBytes; }
    bool isTruncated() const { return m_truncated; }

    /// Character formats used for each kind of text (for tests and for consistency).
    QTextCharFormat streamFormat(sbw::OutputStream stream) const;
    QTextCharFormat escapeFormat(sbw::OutputStream stream) const;
    QTextCharFormat noteFormat() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void appendDecoded(const QString& text, sbw::OutputStream stream);
    /// Inserts as much of `text` as the caps allow; returns false once the caps are reached.
    bool insertCapped(QTextCursor& cursor, QStringView text, const QTextCharFormat& format);
    void showTruncationNote();
    void updateTruncationNote();
    QString truncationNoteText() const;
    void updateFormats();
    GuestTextDecoder& decoder(sbw::OutputStream stream);

    GuestTextDecoder m_stdoutDecoder;
    GuestTextDecoder m_stderrDecoder;
    QTextCharFormat m_stdoutFormat;
    QTextCharFormat m_stderrFormat;
    QTextCharFormat m_stdoutEscapeFormat;
    QTextCharFormat m_stderrEscapeFormat;
    QTextCharFormat m_noteFormat;
    QTextCharFormat m_wrapFormat;

    qsizetype m_maxChars = kDefaultMaxChars;
    int m_maxLines = kDefaultMaxLines;
    qsizetype m_shownChars = 0;
    int m_shownLines = 0;
    qsizetype m_lineChars = 0; ///< characters in the last block so far
    qint64 m_totalBytes = 0;
    bool m_truncated = false;
    bool m_noteEndsLine = false; ///< the last thing shown is a note: output goes below it
    int m_notePosition = -1;
    int m_noteLength = 0;
};

} // namespace sbw
