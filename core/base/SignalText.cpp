#include "base/SignalText.h"

#include <cstring>

namespace sbw {

QString signalText(int number)
{
    const char* abbrev = ::sigabbrev_np(number);
    if (!abbrev)
        return QString::number(number);
    return QStringLiteral("%1 (SIG%2)").arg(number).arg(QString::fromLatin1(abbrev));
}

} // namespace sbw
