#include "run/OutputCap.h"

#include <algorithm>

namespace sbw {

QByteArrayView OutputCap::admit(OutputStream stream, QByteArrayView bytes)
{
    qint64& kept = m_kept[stream == OutputStream::Stdout ? 0 : 1];
    if (m_cap > 0 && kept + bytes.size() > m_cap) {
        bytes = bytes.first(std::max<qsizetype>(m_cap - kept, 0));
        if (!m_passed)
            m_first = stream;
        m_passed = true;
    }
    kept += bytes.size();
    return bytes;
}

QString OutputCap::note() const
{
    if (!m_passed)
        return {};
    return QStringLiteral("%1 passed the output cap of %2 bytes; the rest was dropped")
        .arg(QLatin1String(m_first == OutputStream::Stdout ? "stdout" : "stderr"))
        .arg(m_cap);
}

} // namespace sbw
