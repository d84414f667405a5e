#include "terminal/TerminalKeys.h"

#include <vterm_keycodes.h>

namespace sbw {
namespace {

int specialKey(int qtKey)
{
    switch (qtKey) {
    case Qt::Key_Return:
    case Qt::Key_Enter:
        return VTERM_KEY_ENTER;
    case Qt::Key_Tab:
    case Qt::Key_Backtab:
        return VTERM_KEY_TAB;
    case Qt::Key_Backspace:
        return VTERM_KEY_BACKSPACE;
    case Qt::Key_Escape:
        return VTERM_KEY_ESCAPE;
    case Qt::Key_Up:
        return VTERM_KEY_UP;
    case Qt::Key_Down:
        return VTERM_KEY_DOWN;
    case Qt::Key_Left:
        return VTERM_KEY_LEFT;
    case Qt::Key_Right:
        return VTERM_KEY_RIGHT;
    case Qt::Key_Insert:
        return VTERM_KEY_INS;
    case Qt::Key_Delete:
        return VTERM_KEY_DEL;
    case Qt::Key_Home:
        return VTERM_KEY_HOME;
    case Qt::Key_End:
        return VTERM_KEY_END;
    case Qt::Key_PageUp:
        return VTERM_KEY_PAGEUP;
    case Qt::Key_PageDown:
        return VTERM_KEY_PAGEDOWN;
    default:
        if (qtKey >= Qt::Key_F1 && qtKey <= Qt::Key_F12)
            return VTERM_KEY_FUNCTION(qtKey - Qt::Key_F1 + 1);
        return VTERM_KEY_NONE;
    }
}

/// The C0 byte Ctrl+key sends, or -1 when Ctrl does not make a control byte of this key.
int controlByte(int qtKey)
{
    if (qtKey >= Qt::Key_A && qtKey <= Qt::Key_Z)
        return qtKey - Qt::Key_A + 1;
    switch (qtKey) {
    case Qt::Key_Space:
    case Qt::Key_At:
    case Qt::Key_2:
        return 0x00;
    case Qt::Key_BracketLeft:
    case Qt::Key_3:
        return 0x1b;
    case Qt::Key_Backslash:
    case Qt::Key_4:
        return 0x1c;
    case Qt::Key_BracketRight:
    case Qt::Key_5:
        return 0x1d;
    case Qt::Key_AsciiCircum:
    case Qt::Key_6:
        return 0x1e;
    case Qt::Key_Underscore:
    case Qt::Key_Minus:
    case Qt::Key_7:
        return 0x1f;
    case Qt::Key_Question:
    case Qt::Key_8:
        return 0x7f;
    default:
        return -1;
    }
}

} // namespace

TerminalKeyInput mapTerminalKey(int qtKey, Qt::KeyboardModifiers modifiers, const QString& text)
{
    const bool shift = modifiers & Qt::ShiftModifier;
    const bool alt = modifiers & Qt::AltModifier;
    const bool ctrl = modifiers & Qt::ControlModifier;

    TerminalKeyInput input;
    if (const int key = specialKey(qtKey); key != VTERM_KEY_NONE) {
        input.kind = TerminalKeyInput::Kind::Key;
        input.vtermKey = key;
        input.modifiers = (shift || qtKey == Qt::Key_Backtab ? VTERM_MOD_SHIFT : 0) |
                          (alt ? VTERM_MOD_ALT : 0) | (ctrl ? VTERM_MOD_CTRL : 0);
        return input;
    }

    QByteArray bytes;
    if (ctrl) {
        const int byte = controlByte(qtKey);
        if (byte < 0)
            return input;
        bytes.append(char(byte));
    } else if (!text.isEmpty() && text.front() >= QLatin1Char(' ') && text.front() != QChar(0x7f)) {
        bytes = text.toUtf8();
    } else if (alt && qtKey >= Qt::Key_Space && qtKey <= Qt::Key_AsciiTilde) {
        // Some platforms give no text while Alt is held: use the key itself.
        const char c = char(qtKey);
        bytes.append(qtKey >= Qt::Key_A && qtKey <= Qt::Key_Z && !shift ? char(c - 'A' + 'a') : c);
    } else {
        return input;
    }
    if (alt)
        bytes.prepend('\x1b');
    input.kind = TerminalKeyInput::Kind::Bytes;
    input.bytes = bytes;
    return input;
}

bool isWindowShortcutKey(int qtKey, Qt::KeyboardModifiers modifiers)
{
    return (modifiers & ~Qt::KeypadModifier) == (Qt::ControlModifier | Qt::ShiftModifier) &&
           qtKey != Qt::Key_C && qtKey != Qt::Key_V;
}

} // namespace sbw
