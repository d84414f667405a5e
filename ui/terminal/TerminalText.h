#pragma once

#include <QByteArray>
#include <QString>
#include <QStringView>

namespace sbw {

/// Text that crosses the terminal's boundary, in either direction, made harmless.

/// Longest tab title, in characters; longer titles are cut and end in "…".
inline constexpr int kMaxTerminalTitleChars = 60;

/// A window title set by the program (OSC 0/2) as a tab label: hidden characters (controls,
/// bidi overrides and the rest of VisibleText's list) are dropped, runs of white space become
/// one space, and the result is trimmed and capped at kMaxTerminalTitleChars.
QString sanitisedTerminalTitle(QStringView title);

/// Pasted text as the bytes to send (UTF-8): line breaks ("\r\n", "\n", "\r") become "\r" as
/// typed Enter does, tabs stay, and every other control character (C0 including ESC, DEL,
/// C1) is dropped, so the text can neither end a bracketed paste (ESC [ 2 0 1 ~) nor act as
/// a key (Ctrl+C, Ctrl+D, ESC sequences) by itself.
QByteArray neutralisedPaste(QStringView text);

/// Program output with the status requests (DECRQSS, ESC P $ q Pt ESC \\) that libvterm does
/// not know made into a DCS it ignores ("$q" becomes "$Q"). libvterm 0.1.4 answers an unknown
/// request with sprintf("0$r%.s", length, text), which reads the length as a pointer: one
/// `printf '\eP$qx\e\\'` in a guest crashed the window (found by tests/fuzz/fuzz_terminal).
/// The known ones ("m", "r", "s", " q", "\"q", each ended by ESC \\ right after it) pass
/// unchanged. The start of a request cut by the end of `bytes` (at most 8 bytes) is left in
/// `*held`, to be put before the next output.
QByteArray neutralisedStatusRequests(QByteArrayView bytes, QByteArray* held);

/// Where limitedCsiArguments() is in the program's output between two calls.
struct CsiScan
{
    bool afterEscape = false;
    int separators = -1; ///< ';' and ':' seen in the current CSI sequence; -1 outside one
};

/// How many arguments libvterm 0.1.4 keeps for one CSI sequence (its CSI_ARGS_MAX).
inline constexpr int kMaxCsiArguments = 16;

/// Program output with the separators past the 15th of each CSI sequence (ESC [ …) dropped:
/// libvterm 0.1.4 stores the arguments of a CSI sequence without a bound, so "\e[;;…;;2t" with
/// 17 arguments wrote past its array and corrupted the heap (found by tests/fuzz/fuzz_terminal).
/// Such a sequence then has 16 arguments, the last holding the rest's digits.
QByteArray limitedCsiArguments(QByteArrayView bytes, CsiScan& scan);

} // namespace sbw
