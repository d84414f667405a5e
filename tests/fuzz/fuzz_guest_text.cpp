// Guest output decoded for the views (GuestTextDecoder) and made visible (VisibleText): what
// run output, workspace commands and MCP results show of a guest's bytes.
//
// Input: byte 0 the chunk size (1 + b) the stream is cut into; the rest is the guest's output.

#include "FuzzCheck.h"
#include "base/GuestTextDecoder.h"
#include "base/VisibleText.h"

#include <QList>
#include <cstddef>
#include <cstdint>

namespace {

bool hasHiddenCharacter(const QString& text)
{
    for (char32_t c : text.toUcs4())
        if (sbw::isHiddenCharacter(c))
            return true;
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
        return 0;
    const qsizetype chunk = 1 + data[0];
    const QByteArrayView stream(reinterpret_cast<const char*>(data) + 1, qsizetype(size - 1));

    sbw::GuestTextDecoder whole;
    const QString once = whole.decode(stream) + whole.finish();
    sbw::GuestTextDecoder pieces;
    QString streamed;
    for (qsizetype at = 0; at < stream.size(); at += chunk)
        streamed += pieces.decode(stream.sliced(at, std::min(chunk, stream.size() - at)));
    streamed += pieces.finish();
    SBW_FUZZ_CHECK(streamed == once, "cutting the stream does not change its text");
    if (sbw::isValidUtf8(stream))
        SBW_FUZZ_CHECK(once.toUtf8() == stream, "valid UTF-8 decodes to itself");

    const QString visible = sbw::makeVisible(once);
    SBW_FUZZ_CHECK(!hasHiddenCharacter(visible), "no hidden character survives makeVisible");
    SBW_FUZZ_CHECK(sbw::makeVisible(visible) == visible, "makeVisible is idempotent");
    return 0;
}
