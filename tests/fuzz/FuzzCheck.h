#pragma once

#include <cstdio>
#include <cstdlib>

/// A broken promise of the code under test: prints `what` and aborts, which libFuzzer reports
/// as a crash and saves the input (check() also holds in release builds, unlike assert()).
#define SBW_FUZZ_CHECK(condition, what)                                                            \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "fuzz check failed: %s (%s)\n", what, #condition);                \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)
