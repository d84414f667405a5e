#pragma once

#include <QByteArrayView>

namespace sbw {

/// Writes every byte of `bytes` to the file descriptor `fd`, in as many write(2) calls as it
/// takes: a write interrupted by a signal (EINTR) is repeated and a partial write continues
/// with the rest. Blocks as long as a blocking `fd` does.
///
/// Returns true once all bytes are written (also for empty `bytes`). Returns false at the first
/// write that fails otherwise, with errno set by it, e.g. EPIPE when the reader of a pipe is
/// gone (with SIGPIPE ignored), EAGAIN when a non-blocking `fd` is full, EBADF for a closed
/// `fd`; the bytes before that point have been written, the rest are dropped.
bool writeAll(int fd, QByteArrayView bytes);

} // namespace sbw
