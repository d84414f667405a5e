#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 / Ubuntu 24.04 machine: packages, the libvirt daemon,
# the build (CMake preset "default", into build/) and the default guest image.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

echo "==> [1/5] packages"
packaging/install-dependencies.sh
echo "==> [2/5] libvirt daemon"
packaging/start-libvirt.sh
echo "==> [3/5] build"
cmake --preset default >/dev/null
cmake --build --preset default
echo "==> [4/5] guest image"
packaging/guest/build-image.sh minimal
echo "==> [5/5] MCP test client and conformance suite (official TypeScript SDK and @modelcontextprotocol/conformance, versions pinned by tests/mcp/package-lock.json)"
if ! command -v npm >/dev/null; then
    # Debian's nodejs comes without npm (Node.js from NodeSource has it built in).
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm
fi
npm ci --prefix tests/mcp --no-audit --no-fund
