#include "terminal/TerminalScreen.h"

#include "terminal/TerminalText.h"

#include <algorithm>

namespace sbw {
namespace {

constexpr uint32_t kWideRightHalf = TerminalLine::kWideRightHalf;

VTermColor rgbColor(uint8_t r, uint8_t g, uint8_t b)
{
    VTermColor color;
    vterm_color_rgb(&color, r, g, b);
    return color;
}

} // namespace

struct TerminalScreen::Callbacks
{
    static void output(const char* bytes, size_t length, void* user)
    {
        static_cast<TerminalScreen*>(user)->m_output.append(bytes, qsizetype(length));
    }
};

void TerminalScreen::pushLine(const VTermScreenCell* cells, int cols)
{
    pushScrollback(cells, cols);
    m_changed = true;
}

bool TerminalScreen::popLine(VTermScreenCell* cells, int cols)
{
    if (m_scrollbackCount == 0)
        return false;
    const TerminalLine& line = scrollbackAt(m_scrollbackCount - 1);
    for (int col = 0; col < cols; ++col)
        cells[col] = col < line.size() ? line.cell(col) : m_blank;
    --m_scrollbackCount;
    m_changed = true;
    return true;
}

void TerminalScreen::cursorMoved(VTermPos pos, bool visible)
{
    m_cursor = QPoint(pos.col, pos.row);
    m_cursorVisible = visible;
    m_changed = true;
}

void TerminalScreen::propertyChanged(VTermProp prop, const VTermValue& value)
{
    switch (prop) {
    case VTERM_PROP_CURSORVISIBLE:
        m_cursorVisible = value.boolean;
        break;
    case VTERM_PROP_ALTSCREEN:
        m_altScreen = value.boolean;
        break;
    case VTERM_PROP_MOUSE:
        m_mouseReporting = value.number != VTERM_PROP_MOUSE_NONE;
        break;
    case VTERM_PROP_TITLE: {
        const QString title = sanitisedTerminalTitle(QString::fromUtf8(value.string));
        if (title != m_title) {
            m_title = title;
            Q_EMIT titleChanged(title);
        }
        break;
    }
    default:
        break;
    }
    m_changed = true;
}

void TerminalScreen::bellRang()
{
    Q_EMIT bell();
}

void TerminalScreen::damaged()
{
    m_changed = true;
}

TerminalScreen::TerminalScreen(int cols, int rows, QObject* parent)
    : QObject(parent), m_cols(std::max(kMinimumColumns, cols)), m_rows(std::max(1, rows))
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

    m_grid = std::make_unique<TerminalGrid>(m_vt, static_cast<TerminalGrid::Listener&>(*this));
    // libvterm (0.1.4 to 0.3.3) repeats the last printed character for REP (CSI Ps b) by its
    // width, which is 0 until something was printed: "\e[b" as a terminal's first output looped
    // forever (found by tests/fuzz/fuzz_terminal). One space printed gives it a width for good;
    // a second reset clears the screen again, and REP then repeats that space.
    vterm_state_reset(state, 1);
    vterm_input_write(m_vt, " ", 1);
    vterm_state_reset(state, 1);

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
        const QByteArray input =
            withoutDeviceControlStrings(
                limitedCsiArguments(withoutC1Controls(bytes, m_c1Scan), m_csiScan), m_dcsScan);
        vterm_input_write(m_vt, input.constData(), size_t(input.size()));
    }
    flushOutput();
}

bool TerminalScreen::resize(int cols, int rows)
{
    cols = std::max(kMinimumColumns, cols);
    rows = std::max(1, rows);
    if (cols == m_cols && rows == m_rows)
        return false;
    m_cols = cols;
    m_rows = rows;
    vterm_set_size(m_vt, rows, cols);
    // libvterm 0.1.4 keeps the scroll region (DECSTBM) across a resize: a top margin below the
    // new last row then made its next scroll memmove a negative size (found by
    // tests/fuzz/fuzz_terminal). xterm resets the region on a resize; so does this, keeping
    // the cursor (DECSC, reset DECSTBM, DECRC).
    vterm_input_write(m_vt, "\x1b" "7\x1b[r\x1b" "8", 7);
    m_csiScan = {}; // libvterm's parser is at ground state now
    m_changed = true;
    flushOutput();
    return true;
}

void TerminalScreen::pushScrollback(const VTermScreenCell* cells, int cols)
{
    if (m_scrollbackCount < int(m_scrollback.size())) {
        m_scrollback[(size_t(m_scrollbackFirst) + size_t(m_scrollbackCount)) % m_scrollback.size()]
            .assign(cells, cols);
        ++m_scrollbackCount;
    } else if (m_scrollbackCount < kScrollbackLines) {
        // Not full yet, so the ring starts at slot 0 and grows at its end.
        m_scrollback.emplace_back().assign(cells, cols);
        ++m_scrollbackCount;
    } else {
        m_scrollback[size_t(m_scrollbackFirst)].assign(cells, cols); // drops the oldest
        m_scrollbackFirst = (m_scrollbackFirst + 1) % kScrollbackLines;
    }
}

VTermScreenCell TerminalScreen::screenCell(int row, int col) const
{
    VTermScreenCell cell = m_blank;
    if (row >= 0 && row < m_rows && col >= 0 && col < m_cols)
        m_grid->cell(row, col, cell);
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
        vterm_state_convert_color_to_rgb(vterm_obtain_state(m_vt), &value);
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
        const TerminalLine& stored = scrollbackAt(line);
        return decode(col >= 0 && col < stored.size() ? stored.cell(col) : m_blank);
    }
    return decode(screenCell(line - scrollbackCount(), col));
}

QString TerminalScreen::lineText(int line) const
{
    if (line >= 0 && line < scrollbackCount())
        return scrollbackAt(line).text();
    const int row = line - scrollbackCount();
    QString text;
    text.reserve(m_cols);
    for (int col = 0; col < m_cols; ++col) {
        const VTermScreenCell raw = screenCell(row, col);
        if (raw.chars[0] == kWideRightHalf)
            continue;
        if (raw.chars[0] == 0) {
            text.append(QLatin1Char(' '));
            continue;
        }
        for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && raw.chars[i]; ++i)
            TerminalLine::appendCodePoint(text, raw.chars[i]);
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
