#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 / Ubuntu 24.04 machine: packages, the libvirt daemon,
# the build (CMake preset "default", into build/) and the default guest image.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

echo "==> [1/4] packages"
packaging/install-dependencies.sh
echo "==> [2/4] libvirt daemon"
packaging/start-libvirt.sh
echo "==> [3/4] build"
cmake --preset default >/dev/null
cmake --build --preset default
echo "==> [4/4] guest image"
packaging/guest/build-image.sh minimal
