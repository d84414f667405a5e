// Image recipes (ImageRecipe::parse): the user's own recipe files, listed by the window and
// `sbw image list`.
//
// Input: the recipe file's bytes.

#include "FuzzCheck.h"
#include "image/ImageRecipe.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const QByteArray text(reinterpret_cast<const char*>(data), qsizetype(size));
    const auto recipe = sbw::ImageRecipe::parse(text, QStringLiteral("/fuzz/own.recipe"));
    if (!recipe)
        return 0;
    SBW_FUZZ_CHECK(!recipe->name.isEmpty(), "a recipe has a name");
    SBW_FUZZ_CHECK(!recipe->name.contains(QLatin1Char('\n')), "the name is one line");
    SBW_FUZZ_CHECK(!recipe->description.contains(QLatin1Char('\n')), "the description is one line");
    return 0;
}
