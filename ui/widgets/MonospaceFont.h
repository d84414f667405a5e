#pragma once

#include <QFont>

namespace sbw {

/// The one font for text whose columns must line up: scripts, output, the terminal, log and
/// approval details. The desktop's fixed-width font with kerning off (kerning would move glyphs
/// off the character grid). Some fixed-width families (Noto Sans Mono) carry a few double-width
/// glyphs, so fontconfig does not mark them as monospaced and QFontInfo::fixedPitch() says false
/// although every ASCII glyph has the same advance; what matters to the reader is the advance.
QFont monospaceFont();

} // namespace sbw
