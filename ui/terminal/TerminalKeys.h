#pragma once

#include <QByteArray>
#include <QString>
#include <Qt>

namespace sbw {

/// What one key press sends to the program in the terminal.
struct TerminalKeyInput
{
    enum class Kind
    {
        None, ///< nothing (a lone modifier, or a key without text)
        Key,  ///< a special key that libvterm encodes, since the encoding depends on the
              ///< terminal's modes (application cursor keys, keypad mode)
        Bytes ///< text or a control character, sent as these exact bytes
    };
    Kind kind = Kind::None;
    int vtermKey = 0;  ///< VTermKey for Kind::Key
    int modifiers = 0; ///< VTermModifier bits (shift 1, alt 2, ctrl 4) for Kind::Key
    QByteArray bytes;  ///< for Kind::Bytes
};

/// Maps a Qt key press to terminal input, as xterm does:
/// - Enter, Tab, Shift+Tab, Backspace, Escape, arrows, Insert, Delete, Home, End, PgUp, PgDn
///   and F1–F12 become libvterm keys with their Shift/Alt/Ctrl modifiers;
/// - Ctrl+letter and Ctrl+Space/@, [, \, ], ^, _, ? become the C0 control byte (Ctrl+C → 0x03,
///   Ctrl+Space → 0x00, Ctrl+? → 0x7f);
/// - other keys send their text as UTF-8;
/// - Alt prefixes text and control bytes with ESC (Alt+x → "\x1bx").
/// The caller handles the workbench's own keys (Ctrl+Shift+C/V, Shift+PgUp/PgDn) first.
TerminalKeyInput mapTerminalKey(int qtKey, Qt::KeyboardModifiers modifiers, const QString& text);

/// Whether a key press may trigger one of the window's shortcuts while a terminal has focus:
/// Ctrl+Shift with any key but C and V (the terminal's copy and paste), the combinations GNOME
/// Terminal and Konsole keep for themselves. Every other key belongs to the program in the
/// terminal; a Ctrl+Shift key that no shortcut uses still reaches it.
bool isWindowShortcutKey(int qtKey, Qt::KeyboardModifiers modifiers);

} // namespace sbw
