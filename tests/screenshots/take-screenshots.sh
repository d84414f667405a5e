#!/usr/bin/env bash
# take-screenshots.sh [OUTDIR]
#
# The README's screenshots of the real window: sets up as packaging/start-workbench.sh does,
# builds sbw-screenshot-tour and runs it under Xvfb on real microVMs, in a temporary home (a new
# user's settings and data; the guest images come from the shared cache) on qemu:///session:
# for a normal user a daemon of its own, started in that home, so that no other sandbox shows
# (root has one session daemon, which programs of root share: their sandboxes show too). It
# makes the workspaces agent-1, data-lab, scratch and web (the browser image), runs a
# script that gives back a table and a chart, connects an agent over MCP, and grabs each pane
# at 1280x800 and 1920x1080, then once more at 1280x800 with QT_SCALE_FACTOR=2 (2560x1600) to
# check high-DPI layouts; the workspaces are removed at the end.
#
# Every shot lands in build/screenshots/; the README's set (each pane at 1280x800, every dock at
# 1920x1080, the New Workspace dialog), reduced to a palette by pngquant, in OUTDIR
# (default docs/screenshots).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=${1:-docs/screenshots}
workspaces=(agent-1 data-lab scratch web)

packaging/setup.sh app
cmake --build --preset default --target sbw-screenshot-tour

home=$(mktemp -d)
cleanup() {
    # A tour that stopped half way leaves its workspaces: remove them, then the daemon goes idle.
    for name in "${workspaces[@]}"; do
        build/app/cli/sbw ws rm "$name" --yes >/dev/null 2>&1 || true
    done
    rm -rf "$home"
}
trap cleanup EXIT
export XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_STATE_HOME=$home/state
export XDG_RUNTIME_DIR=$home/runtime LIBVIRT_DEFAULT_URI=qemu:///session
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset QT_QPA_PLATFORM QT_SCALE_FACTOR

shots=build/screenshots
rm -rf "$shots"
mkdir -p "$shots"
tour=build/tests/screenshots/sbw-screenshot-tour
xvfb-run -a -s "-screen 0 1920x1080x24" "$tour" --keep "$shots" 1280x800 1920x1080
xvfb-run -a -s "-screen 0 2560x1600x24" env QT_SCALE_FACTOR=2 "$tour" --suffix @2x "$shots" 1280x800

mkdir -p "$out"
rm -f "$out"/*.png
for shot in "$shots"/*-1280x800.png "$shots"/every-dock-1920x1080.png "$shots"/new-workspace-dialog.png; do
    pngquant --quality 70-95 --speed 1 --strip --force --output "$out/$(basename "$shot")" "$shot"
done
ls -l "$out"
