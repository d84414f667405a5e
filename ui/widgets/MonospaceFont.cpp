#include "widgets/MonospaceFont.h"

#include <QFontDatabase>

namespace sbw {

QFont monospaceFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setStyleHint(QFont::TypeWriter);
    font.setKerning(false);
    return font;
}

} // namespace sbw
