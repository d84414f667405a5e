#!/usr/bin/env bash
# One command for the whole test suite: set everything up, then run every CTest test:
#   integration  real guests (KVM where /dev/kvm is usable, else TCG), in build/ (preset default)
#   unit, gui    under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/ (preset
#                asan; suppressions for reports inside libraries: tests/sanitizers/)
#   fuzz         each libFuzzer target for $SBW_FUZZ_SECONDS (default 30) s and its committed
#                inputs, in build-fuzz/ (preset fuzz, clang)
# Each build builds only what its tests need, so the unit and gui tests are built once.
#
# Arguments go to each of the three ctest runs and narrow them: `packaging/run-tests.sh -L unit`
# runs the unit tests only (a -L is combined with each run's own label), `-R tst_policy` that test
# wherever it is; a run that selects nothing says "No tests were found" and passes.
# Every test step runs even when an earlier one failed; the script fails if any did.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fuzz_seconds=${SBW_FUZZ_SECONDS:-30}

packaging/setup.sh integration
echo "==> guest image python-data (the tests of image templates and charts use it)"
packaging/guest/build-image.sh python-data
echo "==> sanitizer build (preset asan, into build-asan/): the unit and gui tests"
cmake --preset asan >/dev/null
cmake --build --preset asan --target unit-tests gui-tests
echo "==> fuzz build (preset fuzz, clang, into build-fuzz/)"
cmake --preset fuzz -DSBW_FUZZ_SECONDS="$fuzz_seconds" >/dev/null
cmake --build --preset fuzz

failed=()
echo "==> integration tests (build/)"
# A failed test runs once more: real-guest tests hit an intermittent hang in which one SSH message
# between host and guest never arrives (ARCHITECTURE.md, "Known problems"). ctest still reports
# the first failure, and a test failing twice fails the run.
ctest --preset default -L integration --repeat until-pass:2 "$@" || failed+=(integration)
echo "==> unit and gui tests under ASan and UBSan (build-asan/)"
ctest --preset asan "$@" || failed+=("unit and gui (sanitizers)")
echo "==> fuzz targets, ${fuzz_seconds} s each (build-fuzz/)"
ctest --preset fuzz "$@" || failed+=(fuzz)

if [ ${#failed[@]} -gt 0 ]; then
    printf '==> failed: %s\n' "${failed[@]}"
    exit 1
fi
echo "==> all tests passed"
