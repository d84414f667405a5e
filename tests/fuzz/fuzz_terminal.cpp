// The byte stream from a guest's terminal into the screen model (TerminalScreen over libvterm,
// TerminalGrid, TerminalLine), as the terminal tabs and the serial console feed it.
//
// Input: byte 0 the columns (1 + b % 160), byte 1 the rows (1 + b % 64), byte 2 how the stream
// is cut (chunks of 1 + (b & 63) * 8 bytes) and how often it is fed (1 + b >> 6 times, so the
// scrollback ring fills and wraps), bytes 3 and 4 the size the screen is resized to halfway;
// the rest is the guest's output.

#include "FuzzCheck.h"
#include "terminal/TerminalScreen.h"

#include <cstddef>
#include <cstdint>

namespace {

void feedInChunks(sbw::TerminalScreen& screen, QByteArrayView stream, qsizetype chunk)
{
    for (qsizetype at = 0; at < stream.size(); at += chunk)
        screen.feed(stream.sliced(at, std::min(chunk, stream.size() - at)));
}

/// Reads what the widget paints: every line's text, and the cells of the screen and of the
/// scrollback lines next to it.
void readEverything(const sbw::TerminalScreen& screen)
{
    const int scrollback = screen.scrollbackCount();
    SBW_FUZZ_CHECK(scrollback >= 0 && scrollback <= sbw::TerminalScreen::kScrollbackLines,
                   "scrollback within its cap");
    for (int line = 0; line < scrollback + screen.rows(); ++line) {
        const QString text = screen.lineText(line);
        SBW_FUZZ_CHECK(!text.endsWith(QLatin1Char(' ')), "line text without trailing blanks");
    }
    for (int line = std::max(0, scrollback - 2); line < scrollback + screen.rows(); ++line)
        for (int col = 0; col <= screen.cols(); ++col)
            screen.lineCell(line, col);
    (void)screen.screenText();
    const QPoint cursor = screen.cursor();
    if (getenv("SBW_FUZZ_DEBUG"))
        fprintf(stderr, "cursor %d,%d screen %dx%d\n", cursor.x(), cursor.y(), screen.cols(),
                screen.rows());
    SBW_FUZZ_CHECK(cursor.y() >= 0 && cursor.y() < screen.rows(), "cursor row on the screen");
    SBW_FUZZ_CHECK(cursor.x() >= 0 && cursor.x() <= screen.cols(), "cursor column on the screen");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 5)
        return 0;
    const auto* bytes = reinterpret_cast<const char*>(data);
    sbw::TerminalScreen screen(1 + data[0] % 160, 1 + data[1] % 64);
    const qsizetype chunk = 1 + (data[2] & 63) * 8;
    const int times = 1 + (data[2] >> 6);
    const QByteArrayView stream(bytes + 5, qsizetype(size - 5));
    const qsizetype half = stream.size() / 2;
    for (int i = 0; i < times; ++i) {
        feedInChunks(screen, stream.first(half), chunk);
        if (i == 0) {
            screen.resize(1 + data[3] % 160, 1 + data[4] % 64);
            readEverything(screen);
        }
        feedInChunks(screen, stream.sliced(half), chunk);
    }
    readEverything(screen);
    return 0;
}
