#!/usr/bin/env bash
# One command for the whole test suite: set everything up, then run every CTest test (labels
# unit, integration and gui; real guests run under KVM where /dev/kvm is usable, else TCG).
# Arguments go to ctest, e.g. `packaging/run-tests.sh -L unit`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/packaging/setup.sh" all
echo "==> guest image python-data (the tests of image templates and charts use it)"
"$top/packaging/guest/build-image.sh" python-data
echo "==> tests"
cd "$top"
# A failed test runs once more: real-guest tests hit an intermittent hang in which one SSH message
# between host and guest never arrives (ARCHITECTURE.md, "Known problems"). ctest still reports
# the first failure, and a test failing twice fails the run.
ctest --preset default --repeat until-pass:2 "$@"
