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

/// Where withoutC1Controls() is in the program's output between two calls.
struct C1Scan
{
    bool leadHeld = false; ///< the output ended with 0xC2, the first byte of a C1 control
};

/// Program output without the C1 controls written in UTF-8 (U+0080 to U+009F, bytes C2 80 to
/// C2 9F): libvterm 0.1.4 acts on them as on their ESC forms (U+0090 starts a DCS, U+009B a
/// CSI), which the filters below look for only as ESC sequences (found by
/// tests/fuzz/fuzz_terminal). Programs write the ESC forms; xterm's UTF-8 mode and VTE do not
/// act on these either.
QByteArray withoutC1Controls(QByteArrayView bytes, C1Scan& scan);

/// Where withoutDeviceControlStrings() is in the program's output between two calls.
struct DcsScan
{
    QByteArray held;       ///< output cut inside an introducer or a known request: decided next
    bool dropping = false; ///< inside a device control string being removed
};

/// Program output without its device control strings (DCS: ESC P … ESC \), except the status
/// requests libvterm answers safely, each whole and ended by ESC \ right after it: DECRQSS of
/// "m", "r", "s", " q" and "\"q". libvterm 0.1.4 acts on no other DCS, and answers a request
/// it does not know with sprintf("0$r%.s", length, text), reading the length as a pointer:
/// one `printf '\eP$qx\e\\'` in a guest crashed the window, and so did requests reached past
/// an ESC followed by a control character or through invalid bytes inside another DCS (all
/// found by tests/fuzz/fuzz_terminal). A removed string ends at ESC \ (dropped), CAN or SUB
/// (dropped), or any other ESC (kept), as in xterm.
QByteArray withoutDeviceControlStrings(QByteArrayView bytes, DcsScan& scan);

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
