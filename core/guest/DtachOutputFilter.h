#pragma once

#include <QByteArray>

namespace sbw {

/// Takes out of the bytes of a dtach client's terminal what dtach draws of its own: the clear
/// screen it sends when it attaches (the tab keeps showing what the shell wrote before) and the
/// line it prints when the shell has ended ("[EOF - dtach terminating]": the tab says that
/// itself). Everything else passes unchanged. One filter per channel (DetachableShell).
class DtachOutputFilter
{
public:
    /// The bytes to show of the next `bytes` of output. Bytes that may be the start of dtach's
    /// own are held back until the next call: an unfinished escape sequence, which a terminal
    /// would not show yet either.
    QByteArray filter(const QByteArray& bytes);
    /// What is still held back, when the channel has closed.
    QByteArray finish();

private:
    QByteArray m_held;
    bool m_attachSeen = false; ///< past the clear screen at the start
};

} // namespace sbw
