#!/usr/bin/env bash
# One command for the whole test suite: set everything up, then run every CTest test:
#   integration  real guests (KVM where /dev/kvm is usable, else TCG), in build/ (preset default)
#   unit, gui    under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/ (preset
#                asan; suppressions for reports inside libraries: tests/sanitizers/); the gui
#                tests drive the widgets, several of them on real guests
#   fuzz         each libFuzzer target for its fixed number of runs from a fixed seed (about 30 s;
#                $SBW_FUZZ_RUNS_PERCENT scales them, default 100) and its committed inputs, in
#                build-fuzz/ (preset fuzz, clang)
# Each build builds only what its tests need, so every test is built once. Every test runs once:
# a test that fails sometimes is a bug to find, not to retry.
#
# Arguments go to each of the three ctest runs and narrow them: `packaging/run-tests.sh -L unit`
# runs the unit tests only (a -L is combined with each run's own label), `-R tst_policy` that test
# wherever it is; a run that selects nothing says "No tests were found" and passes.
# Every test step runs even when an earlier one failed; the script fails if any did.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
fuzz_runs_percent=${SBW_FUZZ_RUNS_PERCENT:-100}

packaging/setup.sh integration
echo "==> guest image python-data (the tests of image templates and charts use it)"
packaging/guest/build-image.sh python-data
echo "==> guest image browser (the tests of the workspace browser use it)"
packaging/guest/build-image.sh browser
echo "==> sanitizer build (preset asan, into build-asan/): the unit and gui tests"
cmake --preset asan >/dev/null
cmake --build --preset asan --target unit-tests gui-tests
echo "==> fuzz build (preset fuzz, clang, into build-fuzz/)"
cmake --preset fuzz -DSBW_FUZZ_RUNS_PERCENT="$fuzz_runs_percent" >/dev/null
cmake --build --preset fuzz

failed=()
echo "==> integration tests (build/)"
ctest --preset default -L integration "$@" || failed+=(integration)
echo "==> unit and gui tests under ASan and UBSan (build-asan/)"
ctest --preset asan "$@" || failed+=("unit and gui (sanitizers)")
echo "==> fuzz targets, ${fuzz_runs_percent} % of their runs each (build-fuzz/)"
ctest --preset fuzz "$@" || failed+=(fuzz)

if [ ${#failed[@]} -gt 0 ]; then
    printf '==> failed: %s\n' "${failed[@]}"
    exit 1
fi
echo "==> all tests passed"
