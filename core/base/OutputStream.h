#pragma once

namespace sbw {

/// Which stream a chunk of a command's output came from.
enum class OutputStream
{
    Stdout,
    Stderr
};

} // namespace sbw
