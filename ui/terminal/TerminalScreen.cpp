#include "TerminalScreen.h"

#include "TerminalText.h"

#include <algorithm>

namespace sbw {
namespace {

constexpr uint32_t kWideRightHalf = uint32_t(-1); // libvterm's mark for a wide char's 2nd cell

VTermColor rgbColor(uint8_t r, uint8_t g, uint8_t b)
{
    VTermColor color;
    vterm_color_rgb(&color, r, g, b);
    return color;
}

bool isBlank(const VTermScreenCell& cell)
{
    return cell.chars[0] == 0 && VTERM_COLOR_IS_DEFAULT_BG(&cell.bg) && !cell.attrs.reverse &&
           !cell.attrs.underline && !cell.attrs.strike;
}

} // namespace

struct TerminalScreen::Callbacks
{
    static TerminalScreen& self(void* user) { return *static_cast<TerminalScreen*>(user); }

    static int damage(VTermRect, void* user)
    {
        self(user).m_changed = true;
        return 1;
    }
    static int moverect(VTermRect, VTermRect, void* user)
    {
        self(user).m_changed = true;
        return 1;
    }
    static int movecursor(VTermPos pos, VTermPos, int visible, void* user)
    {
        TerminalScreen& screen = self(user);
        screen.m_cursor = QPoint(pos.col, pos.row);
        screen.m_cursorVisible = visible;
        screen.m_changed = true;
        return 1;
    }
    static int settermprop(VTermProp prop, VTermValue* value, void* user)
    {
        TerminalScreen& screen = self(user);
        switch (prop) {
        case VTERM_PROP_CURSORVISIBLE:
            screen.m_cursorVisible = value->boolean;
            break;
        case VTERM_PROP_ALTSCREEN:
            screen.m_altScreen = value->boolean;
            break;
        case VTERM_PROP_MOUSE:
            screen.m_mouseReporting = value->number != VTERM_PROP_MOUSE_NONE;
            break;
        case VTERM_PROP_TITLE: {
            const QString title = sanitisedTerminalTitle(QString::fromUtf8(value->string));
            if (title != screen.m_title) {
                screen.m_title = title;
                Q_EMIT screen.titleChanged(title);
            }
            break;
        }
        default:
            break;
        }
        screen.m_changed = true;
        return 1;
    }
    static int bell(void* user)
    {
        Q_EMIT self(user).bell();
        return 1;
    }
    static int pushline(int cols, const VTermScreenCell* cells, void* user)
    {
        TerminalScreen& screen = self(user);
        Line line(cells, cells + cols);
        while (!line.empty() && isBlank(line.back()))
            line.pop_back();
        screen.m_scrollback.push_back(std::move(line));
        while (int(screen.m_scrollback.size()) > kScrollbackLines)
            screen.m_scrollback.pop_front();
        screen.m_changed = true;
        return 1;
    }
    static int popline(int cols, VTermScreenCell* cells, void* user)
    {
        TerminalScreen& screen = self(user);
        if (screen.m_scrollback.empty())
            return 0;
        const Line& line = screen.m_scrollback.back();
        for (int col = 0; col < cols; ++col)
            cells[col] = col < int(line.size()) ? line[size_t(col)] : screen.m_blank;
        screen.m_scrollback.pop_back();
        screen.m_changed = true;
        return 1;
    }
    static void output(const char* bytes, size_t length, void* user)
    {
        self(user).m_output.append(bytes, qsizetype(length));
    }
    static const VTermScreenCallbacks* table()
    {
        static const VTermScreenCallbacks callbacks = {
            &damage, &moverect, &movecursor, &settermprop, &bell, nullptr, &pushline, &popline,
        };
        return &callbacks;
    }
};

TerminalScreen::TerminalScreen(int cols, int rows, QObject* parent)
    : QObject(parent), m_cols(std::max(1, cols)), m_rows(std::max(1, rows))
{
    m_vt = vterm_new(m_rows, m_cols);
    vterm_set_utf8(m_vt, 1);
    vterm_output_set_callback(m_vt, &Callbacks::output, this);

    VTermState* state = vterm_obtain_state(m_vt);
    const VTermColor foreground = rgbColor(0xd0, 0xd0, 0xd0);
    const VTermColor background = rgbColor(0x1c, 0x1c, 0x1c);
    vterm_state_set_default_colors(state, &foreground, &background);
    // The Tango palette for colours 0–15: readable on the dark background, unlike xterm's
    // pure blue. Bold text in colours 0–7 uses the bright variant, as most terminals do.
    static constexpr uint32_t kPalette[16] = {
        0x2e3436, 0xcc0000, 0x4e9a06, 0xc4a000, 0x3465a4, 0x75507b, 0x06989a, 0xd3d7cf,
        0x555753, 0xef2929, 0x8ae234, 0xfce94f, 0x729fcf, 0xad7fa8, 0x34e2e2, 0xeeeeec,
    };
    for (int i = 0; i < 16; ++i) {
        const VTermColor color =
            rgbColor(uint8_t(kPalette[i] >> 16), uint8_t(kPalette[i] >> 8), uint8_t(kPalette[i]));
        vterm_state_set_palette_color(state, i, &color);
    }
    vterm_state_set_bold_highbright(state, 1);

    m_screen = vterm_obtain_screen(m_vt);
    vterm_screen_set_callbacks(m_screen, Callbacks::table(), this);
    vterm_screen_enable_altscreen(m_screen, 1);
    vterm_screen_set_damage_merge(m_screen, VTERM_DAMAGE_SCROLL);
    vterm_screen_reset(m_screen, 1);

    m_blank = VTermScreenCell{};
    m_blank.width = 1;
    vterm_state_get_default_colors(state, &m_blank.fg, &m_blank.bg);
}

TerminalScreen::~TerminalScreen()
{
    vterm_free(m_vt);
}

void TerminalScreen::feed(QByteArrayView bytes)
{
    if (!bytes.isEmpty()) {
        vterm_input_write(m_vt, bytes.data(), size_t(bytes.size()));
        vterm_screen_flush_damage(m_screen);
    }
    flushOutput();
}

bool TerminalScreen::resize(int cols, int rows)
{
    cols = std::max(1, cols);
    rows = std::max(1, rows);
    if (cols == m_cols && rows == m_rows)
        return false;
    m_cols = cols;
    m_rows = rows;
    vterm_set_size(m_vt, rows, cols);
    vterm_screen_flush_damage(m_screen);
    m_changed = true;
    flushOutput();
    return true;
}

VTermScreenCell TerminalScreen::screenCell(int row, int col) const
{
    VTermScreenCell cell = m_blank;
    if (row >= 0 && row < m_rows && col >= 0 && col < m_cols)
        vterm_screen_get_cell(m_screen, VTermPos{row, col}, &cell);
    return cell;
}

TerminalCell TerminalScreen::decode(const VTermScreenCell& raw) const
{
    TerminalCell cell;
    if (raw.chars[0] == kWideRightHalf) {
        cell.width = 0;
    } else {
        cell.width = raw.width;
        int count = 0;
        while (count < VTERM_MAX_CHARS_PER_CELL && raw.chars[count])
            ++count;
        cell.text = QString::fromUcs4(reinterpret_cast<const char32_t*>(raw.chars), count);
    }
    const auto color = [this](VTermColor value, bool isDefault) {
        TerminalColor result;
        if (isDefault) {
            result.kind = TerminalColor::Kind::Default;
        } else if (VTERM_COLOR_IS_INDEXED(&value)) {
            result.kind = TerminalColor::Kind::Indexed;
            result.index = value.indexed.idx;
        } else {
            result.kind = TerminalColor::Kind::Rgb;
        }
        vterm_screen_convert_color_to_rgb(m_screen, &value);
        result.rgb = QColor(value.rgb.red, value.rgb.green, value.rgb.blue);
        return result;
    };
    cell.foreground = color(raw.fg, VTERM_COLOR_IS_DEFAULT_FG(&raw.fg));
    cell.background = color(raw.bg, VTERM_COLOR_IS_DEFAULT_BG(&raw.bg));
    cell.bold = raw.attrs.bold;
    cell.italic = raw.attrs.italic;
    cell.underline = raw.attrs.underline != VTERM_UNDERLINE_OFF;
    cell.reverse = raw.attrs.reverse;
    cell.strike = raw.attrs.strike;
    return cell;
}

TerminalCell TerminalScreen::cell(int row, int col) const
{
    return decode(screenCell(row, col));
}

TerminalCell TerminalScreen::lineCell(int line, int col) const
{
    if (line >= 0 && line < scrollbackCount()) {
        const Line& stored = m_scrollback[size_t(line)];
        return decode(col >= 0 && col < int(stored.size()) ? stored[size_t(col)] : m_blank);
    }
    return decode(screenCell(line - scrollbackCount(), col));
}

QString TerminalScreen::lineText(int line) const
{
    const bool inScrollback = line >= 0 && line < scrollbackCount();
    const int count = inScrollback ? int(m_scrollback[size_t(line)].size()) : m_cols;
    QString text;
    for (int col = 0; col < count; ++col) {
        const VTermScreenCell raw = inScrollback ? m_scrollback[size_t(line)][size_t(col)]
                                                 : screenCell(line - scrollbackCount(), col);
        if (raw.chars[0] == kWideRightHalf)
            continue;
        if (raw.chars[0] == 0) {
            text.append(QLatin1Char(' '));
            continue;
        }
        for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && raw.chars[i]; ++i) {
            const char32_t codePoint = raw.chars[i];
            text.append(QString::fromUcs4(&codePoint, 1));
        }
    }
    while (text.endsWith(QLatin1Char(' ')))
        text.chop(1);
    return text;
}

QColor TerminalScreen::defaultBackground() const
{
    return decode(m_blank).background.rgb;
}

QString TerminalScreen::screenText() const
{
    QStringList rows;
    for (int row = 0; row < m_rows; ++row)
        rows.append(lineText(scrollbackCount() + row));
    return rows.join(QLatin1Char('\n'));
}

void TerminalScreen::sendKey(const TerminalKeyInput& key)
{
    switch (key.kind) {
    case TerminalKeyInput::Kind::Key:
        vterm_keyboard_key(m_vt, VTermKey(key.vtermKey), VTermModifier(key.modifiers));
        break;
    case TerminalKeyInput::Kind::Bytes:
        m_output.append(key.bytes);
        break;
    case TerminalKeyInput::Kind::None:
        break;
    }
    flushOutput();
}

void TerminalScreen::sendMouseButton(int row, int col, int button, bool pressed, int modifiers)
{
    if (!m_mouseReporting)
        return;
    vterm_mouse_move(m_vt, row, col, VTermModifier(modifiers));
    vterm_mouse_button(m_vt, button, pressed, VTermModifier(modifiers));
    flushOutput();
}

void TerminalScreen::sendMouseMove(int row, int col, int modifiers)
{
    if (!m_mouseReporting)
        return;
    vterm_mouse_move(m_vt, row, col, VTermModifier(modifiers));
    flushOutput();
}

void TerminalScreen::paste(QStringView text)
{
    const QByteArray bytes = neutralisedPaste(text);
    if (bytes.isEmpty())
        return;
    vterm_keyboard_start_paste(m_vt); // writes ESC[200~ only in bracketed paste mode
    m_output.append(bytes);
    vterm_keyboard_end_paste(m_vt);
    flushOutput();
}

void TerminalScreen::flushOutput()
{
    if (!m_output.isEmpty())
        Q_EMIT outputReady(std::exchange(m_output, {}));
    if (m_changed) {
        m_changed = false;
        Q_EMIT changed();
    }
}

} // namespace sbw
