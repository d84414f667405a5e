#include "guest/DtachOutputFilter.h"

#include <algorithm>
#include <utility>

namespace sbw {

namespace {

// dtach's attach.c: the screen clear when it attaches, the line when the master has gone
// (EOS moves the cursor to the bottom line first).
const QByteArray kAttachClear = QByteArrayLiteral("\x1b[H\x1b[J");
const QByteArray kEndLine = QByteArrayLiteral("\x1b[999H\r\n[EOF - dtach terminating]\r\n");

/// Length of the longest end of `bytes` that is a proper start of `line`.
qsizetype partialAtEnd(const QByteArray& bytes, const QByteArray& line)
{
    for (qsizetype n = std::min(bytes.size(), line.size() - 1); n > 0; --n)
        if (line.startsWith(bytes.right(n)))
            return n;
    return 0;
}

} // namespace

QByteArray DtachOutputFilter::filter(const QByteArray& bytes)
{
    QByteArray shown = m_held + bytes;
    m_held.clear();
    if (!m_attachSeen) {
        if (shown.size() < kAttachClear.size() && kAttachClear.startsWith(shown)) {
            m_held = shown;
            return {};
        }
        m_attachSeen = true;
        if (shown.startsWith(kAttachClear))
            shown.remove(0, kAttachClear.size());
    }
    shown.replace(kEndLine, QByteArray());
    const qsizetype partial = partialAtEnd(shown, kEndLine);
    m_held = shown.right(partial);
    shown.chop(partial);
    return shown;
}

QByteArray DtachOutputFilter::finish()
{
    return std::exchange(m_held, {});
}

} // namespace sbw
