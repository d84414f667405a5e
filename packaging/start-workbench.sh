#!/usr/bin/env bash
# One command for a new user: set everything up, then open the workbench and run the example
# script in a real microVM. Without a display (no $DISPLAY or $WAYLAND_DISPLAY) the window
# opens on a virtual X server (xvfb-run). Extra arguments go to sandbox-workbench.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/packaging/setup.sh" app

gui=("$top/build/app/gui/sandbox-workbench" --script "$top/resources/examples/hello.py" --run "$@")
echo "==> starting the workbench"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "${gui[@]}"
fi
echo "    no display found: the window runs on a virtual X server, where nobody sees it;"
echo "    the run is logged in \${XDG_STATE_HOME:-~/.local/state}/sandbox-workbench/log/. Ctrl-C quits."
exec xvfb-run -a -s "-screen 0 1280x800x24" "${gui[@]}"
