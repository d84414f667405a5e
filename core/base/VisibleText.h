#pragma once

#include <QByteArrayView>
#include <QString>
#include <QStringView>

namespace sbw {

/// Text from guests and agents is untrusted: these helpers decide which characters must not
/// act on a view or a terminal (terminal escape introducers, C1 controls, bidi overrides, line
/// separators, Qt's own frame markers) and give each a visible stand-in, so such text shows
/// what it contains. Qt Core only: the GUI's views and the CLI's terminal prompts share them.

/// True for a code point that must be shown escaped: C0 controls other than '\n' and '\t',
/// DEL, C1 controls (U+0080–U+009F), bidi marks, embeddings, overrides and isolates
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), U+2028, U+2029, U+FEFF,
/// interlinear annotation controls (U+FFF9–U+FFFB) and noncharacters (U+FDD0–U+FDEF and
/// U+xFFFE/U+xFFFF, which QTextDocument uses internally).
bool isHiddenCharacter(char32_t codePoint);

/// The stand-in shown for a hidden character, in ASCII: CR as "\r", other C0 controls, DEL and
/// C1 controls as "\xNN" (ESC → "\x1b", CSI → "\x9b"), everything else as "<U+202E>".
QString visibleForm(char32_t codePoint);

/// `text` with every hidden character replaced by its visible form; for status lines, tooltips
/// and messages that may carry text from a guest.
QString makeVisible(QStringView text);

/// `text` for a one-line display (a table cell, a list row, a notification) that never hides a
/// second line: makeVisible(), each line break shown as "⏎", and after a text of more than
/// one line the marker " (+N lines)" (" (+1 line)"; a final line break starts no line).
/// With `maxChars` > 0 a longer text is cut to that many characters ending in "…", the marker
/// kept: "ls⏎rm -rf /ro… (+1 line)".
QString oneLineVisible(QStringView text, qsizetype maxChars = 0);

/// A name or path of raw bytes (a guest's file name: any byte but NUL) as one line of text
/// from which the bytes can be read back, so two different names never look the same. UTF-8
/// is decoded; a byte that is not part of well-formed UTF-8 is written "\xff"; a backslash
/// is written twice ("\\"); newline, tab and CR are "\n", "\t", "\r"; other control bytes
/// "\x1b"; other hidden characters (C1 controls included) "<U+202E>", and a '<' that would
/// start such a form is written "\x3c". Also the host name of a downloaded guest file: valid
/// UTF-8, without '/', and the guest's name itself for every plain name.
QString visibleName(QByteArrayView name);

/// A process name from a guest (its comm, a kernel log line) with only ASCII letters, digits
/// and ._+- kept and every other character shown as '?': safe in any sentence or column.
QString plainProcessName(QStringView name);

} // namespace sbw
