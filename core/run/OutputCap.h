#pragma once

#include "base/OutputStream.h"

#include <QByteArrayView>
#include <QString>

#include <atomic>

namespace sbw {

/// The output cap of one command (RunOptions::outputCapBytes, WorkspaceCommandOptions): at most
/// `capBytes` of stdout and of stderr each are kept; past that the rest is dropped and passed()
/// is raised, which the guest session watches (ExecRequest::cancel) to kill the command.
/// admit() is called on the session's I/O thread; passed() may be read from any thread.
class OutputCap
{
public:
    /// 0: no cap.
    explicit OutputCap(qint64 capBytes) : m_cap(capBytes) {}

    /// The part of `bytes` of `stream` that stays within the cap.
    QByteArrayView admit(OutputStream stream, QByteArrayView bytes);

    /// Set once a stream passed the cap.
    const std::atomic_bool& passed() const { return m_passed; }

    /// "stdout passed the output cap of 1024 bytes; the rest was dropped", naming the stream
    /// that passed first; empty while none has.
    QString note() const;

private:
    qint64 m_cap;
    qint64 m_kept[2] = {0, 0}; ///< stdout, stderr
    std::atomic_bool m_passed{false};
    OutputStream m_first = OutputStream::Stdout; ///< the stream that passed first
};

} // namespace sbw
