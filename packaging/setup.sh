#!/usr/bin/env bash
# setup.sh [app|all|integration]
#
# Sets everything up on a fresh Debian 12 / Ubuntu 24.04 machine: packages, the libvirt daemon,
# the build (CMake preset "default", into build/) and the default guest image. "all" (the
# default) builds every target and installs the MCP test client; "integration" (for
# packaging/run-tests.sh, which builds the unit and gui tests under the sanitizers instead)
# builds only the integration tests and the programs they start, and installs the MCP test
# client; "app" builds only the window and the CLI (sandbox-workbench, sbw), which takes about
# half as long.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

what=${1:-all}
case $what in
    app) targets=(--target sandbox-workbench sbw); steps=4 ;;
    all) targets=(); steps=5 ;;
    integration) targets=(--target integration-tests); steps=5 ;;
    *) echo "usage: $0 [app|all|integration]" >&2; exit 2 ;;
esac

echo "==> [1/$steps] packages"
packaging/install-dependencies.sh
echo "==> [2/$steps] libvirt daemon"
packaging/start-libvirt.sh
case $what in
    app) echo "==> [3/$steps] build (the window and the CLI)" ;;
    integration) echo "==> [3/$steps] build (the integration tests and the programs they start)" ;;
    *) echo "==> [3/$steps] build" ;;
esac
cmake --preset default >/dev/null
cmake --build --preset default "${targets[@]}"
echo "==> [4/$steps] guest image"
packaging/guest/build-image.sh minimal
if [ "$what" = app ]; then exit 0; fi
echo "==> [5/$steps] MCP test client and conformance suite (official TypeScript SDK and @modelcontextprotocol/conformance, versions pinned by tests/mcp/package-lock.json)"
if ! command -v npm >/dev/null; then
    # Debian's nodejs comes without npm (Node.js from NodeSource has it built in).
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm
fi
npm ci --prefix tests/mcp --no-audit --no-fund
