#!/usr/bin/env bash
# build-image.sh [RECIPE_NAME_OR_PATH]          (default: minimal)
# build-image.sh --hash [RECIPE_NAME_OR_PATH]   print the image hash of the recipe and exit
#
# Builds a Sandbox Workbench guest image from Debian packages only, or reuses the cached
# build of the same inputs. Output, see README.md:
#   ${XDG_CACHE_HOME:-~/.cache}/sandbox-workbench/images/<hash>/
#       vmlinuz  initrd.img  rootfs.qcow2  manifest.json
#   ${XDG_CACHE_HOME:-~/.cache}/sandbox-workbench/images/<recipe name> -> <hash>
# <hash>: first 16 hex digits of a sha256 over the recipe and every file the build uses.
#
# Runs as root (mmdebstrap --mode=root) or as a user with subordinate ids in /etc/subuid
# and /etc/subgid (mmdebstrap --mode=unshare, needs newuidmap from the uidmap package).
# Nothing is mounted: the ext4 image is written by mkfs.ext4 -d.
set -Eeuo pipefail
# Only stdin, stdout and stderr stay open: mmdebstrap gives apt a pipe on the lowest free
# descriptor, and apt's `cat >&N` runs in dash, which cannot redirect descriptors above 9, so
# descriptors a caller leaves open (ctest, the window) made apt fail with "Bad fd number".
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if ((fd > 2)); then
        { exec {fd}>&-; } 2>/dev/null || true
    fi
done

GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-workbench/images
export PATH=$PATH:/usr/sbin:/sbin  # mkfs.ext4 for users whose PATH lacks sbin

# The build's inputs besides the recipe: changing any of them changes the image hash.
BUILD_FILES=(build-image.sh customize-rootfs.sh initramfs-init)  # and everything in rootfs/
# Packages that sbw-init and customize-rootfs.sh use; every recipe must list them.
REQUIRED_PACKAGES=(openssh-server qemu-guest-agent tini util-linux kmod e2fsprogs)
# Drivers the initramfs loads, in this order, each after its dependencies. Those built
# into the kernel are skipped (ext4 is in linux-image-cloud-amd64). virtio_net is loaded on
# every boot (it costs little) so that the initramfs can configure the NIC when there is one.
# virtio_rng feeds the host's entropy to the kernel's random pool before sshd needs it.
INITRAMFS_MODULES=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
    virtio_rng virtio_console virtio_blk virtio_balloon virtio_net ext4)
# deb.debian.org also serves the security archive (mmdebstrap would use security.debian.org).
MIRROR=http://deb.debian.org/debian
SECURITY_MIRROR=http://deb.debian.org/debian-security
# Guest images carry no manuals, documentation or translations; dpkg keeps skipping them
# for packages installed later inside the guest.
# Recommended packages are left out: a recipe lists what its image needs.
APT_OPTIONS=(--aptopt='APT::Install-Recommends "false"')
DPKG_OPTIONS=(
    # No fsync per unpacked file: the tree is packed into an image afterwards anyway.
    --dpkgopt='force-unsafe-io'
    --dpkgopt='path-exclude=/usr/share/man/*'
    --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/doc/*'
    --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/locale/*'
    --dpkgopt='path-include=/usr/share/locale/locale.alias'
)
DISK_SIZE=$((4 * 1024 * 1024 * 1024))  # virtual size of rootfs.qcow2, mostly free space
# What the host passes on the kernel command line, besides sbw.key=TYPE:BASE64.
# mitigations=off: everything in the guest runs as root, so the guest kernel's Spectre-class
# mitigations protect nothing there (the host's still do); without them a TCG boot is
# 0.3-0.8 s faster.
# preempt=none: a task woken in the kernel waits until the running one leaves the kernel, so a
# writer to a PTY fills it before the reader runs. With the kernel's default (voluntary), n_tty
# switches to the reader at every line, because ONLCR writes each "\r\n" on its own: measured
# under TCG with 1 vCPU, `script -qc 'cat FILE'` of 10 MB of base64 text took 7.1 s, with
# preempt=none 1.6 s (a pipe: 0.2-0.4 s either way); boot and Python start-up times did not change.
CMDLINE="console=ttyS0 root=/dev/vda quiet mitigations=off preempt=none"
# sbw-init serves every virtio-serial port named org.sbw.ssh.N, one host SSH connection each.
# The first is the one an ephemeral run uses; a workspace's domain gets all of them, so that
# several programs (the window, `sbw ws exec`) reach its guest at once.
SSH_PORTS=(org.sbw.ssh.0 org.sbw.ssh.1 org.sbw.ssh.2 org.sbw.ssh.3)
AGENT_PORT=org.qemu.guest_agent.0

say() { printf '%s\n' "$*"; }
die() {
    printf 'build-image: error: %s\n' "$*" >&2
    exit 1
}
trap 'printf "build-image: error: %s failed with exit status %s (line %s); the cache is unchanged\n" "${BASH_COMMAND%% *}" "$?" "$LINENO" >&2' ERR

# --- recipe -------------------------------------------------------------------------------
print_hash=
if [[ ${1:-} == --hash ]]; then
    print_hash=1
    shift
fi
recipe_arg=${1:-minimal}
case $recipe_arg in
    */* | *.recipe) recipe=$recipe_arg ;;
    *) recipe=$GUEST_DIR/$recipe_arg.recipe ;;
esac
[[ -f $recipe ]] || die "no recipe '$recipe_arg' ($recipe does not exist)"
NAME='' DESCRIPTION='' SUITE='' PACKAGES='' KERNEL_PACKAGE='' SETUP=''
# shellcheck source=minimal.recipe
source "$recipe"
for key in NAME SUITE PACKAGES KERNEL_PACKAGE; do
    [[ -n ${!key} ]] || die "$recipe does not set $key"
done
[[ $NAME =~ ^[a-z0-9][a-z0-9._-]*$ ]] || die "$recipe: NAME '$NAME' is not a plain lower-case name"
IFS=$' \t\n' read -r -d '' -a packages <<<"$PACKAGES" || true
for package in "${REQUIRED_PACKAGES[@]}"; do
    [[ " ${packages[*]} " == *" $package "* ]] ||
        die "$recipe: PACKAGES lacks $package (the guest needs ${REQUIRED_PACKAGES[*]})"
done

image_hash() {
    (
        printf '%s recipe\n' "$(sha256sum <"$recipe" | cut -d ' ' -f 1)"
        cd "$GUEST_DIR"
        for file in "${BUILD_FILES[@]}" $(find rootfs ! -type d | LC_ALL=C sort); do
            if [[ -L $file ]]; then
                kind=link sum=$(readlink "$file" | sha256sum)
            elif [[ -x $file ]]; then
                kind=exec sum=$(sha256sum <"$file")
            else
                kind=file sum=$(sha256sum <"$file")
            fi
            printf '%s %s %s\n' "${sum%% *}" "$kind" "$file"
        done
    ) | sha256sum | cut -c 1-16
}

if [[ -n $print_hash ]]; then
    image_hash
    exit 0
fi

for tool in mmdebstrap mkfs.ext4 qemu-img cpio gzip tar sha256sum; do
    command -v "$tool" >/dev/null || die "$tool is not installed (see packaging/guest/README.md)"
done
if [[ $EUID -eq 0 ]]; then
    mode=root
else
    mode=unshare
    command -v newuidmap >/dev/null || die "building as a user needs newuidmap (package uidmap)"
fi

# --- cache --------------------------------------------------------------------------------

# point_link: atomically make images/NAME a link to images/<hash>.
point_link() {
    ln -sfn "$hash" "$CACHE_DIR/.$NAME.$$"
    mv -T "$CACHE_DIR/.$NAME.$$" "$CACHE_DIR/$NAME"
}

hash=$(image_hash)
image_dir=$CACHE_DIR/$hash
mkdir -p "$CACHE_DIR"
if [[ -f $image_dir/manifest.json ]]; then
    point_link
    say "reusing cached image $NAME ($hash): $image_dir"
    exit 0
fi

say "building image $NAME ($hash) from $recipe"
# Built in a temporary folder that is renamed into place at the end: an interrupted or
# failed build leaves nothing in the cache.
work=$(mktemp -d "$CACHE_DIR/.build-$hash.XXXXXX")
trap 'rm -rf "$work"' EXIT

# as_image_root COMMAND...: run where the root file system's owners exist, i.e. as root, or
# in a user namespace with the subordinate ids that mmdebstrap --mode=unshare used.
as_image_root() {
    if [[ $mode == root ]]; then
        "$@"
    else
        mmdebstrap --unshare-helper "$@"
    fi
}

# --- 1. root file system, kernel, busybox -------------------------------------------------
say "[1/5] bootstrapping root filesystem (mmdebstrap, $mode mode)…"
# Files of rootfs/ go over the installed system, owned by root.
(cd "$GUEST_DIR/rootfs" && find . ! -type d | LC_ALL=C sort |
    tar -c --no-recursion -T - --owner=0 --group=0 --numeric-owner --mode=go-w \
        -f "$work/overlay.tar")
mkdir "$work/out"
include=$(IFS=,; echo "${packages[*]}")
# The recipe's SETUP commands run in the installed system (chroot, /bin/sh -eu, as root).
setup_hooks=()
if [[ -n $SETUP ]]; then
    printf '%s\n' "$SETUP" >"$work/setup.sh"
    setup_hooks=(
        --customize-hook="upload $(printf %q "$work/setup.sh") /tmp/sbw-setup.sh"
        --customize-hook='chroot "$1" /bin/sh -eu /tmp/sbw-setup.sh'
        --customize-hook='rm "$1/tmp/sbw-setup.sh"'
    )
fi
mmdebstrap --mode="$mode" --variant=minbase --include="$include" "${APT_OPTIONS[@]}" "${DPKG_OPTIONS[@]}" \
    --customize-hook="tar-in $(printf %q "$work/overlay.tar") /" \
    --customize-hook="upload $(printf %q "$GUEST_DIR/customize-rootfs.sh") /tmp/sbw-customize.sh" \
    --customize-hook="sh \"\$1/tmp/sbw-customize.sh\" \"\$1\" $KERNEL_PACKAGE ${INITRAMFS_MODULES[*]}" \
    "${setup_hooks[@]}" \
    --customize-hook="sync-out /sbw-out $(printf %q "$work/out")" \
    --customize-hook='rm -r "$1/sbw-out" "$1/tmp/sbw-customize.sh"' \
    "$SUITE" "$work/rootfs.tar" \
    "deb $MIRROR $SUITE main" \
    "deb $MIRROR $SUITE-updates main" \
    "deb $SECURITY_MIRROR $SUITE-security main"

# --- 2. ext4 ------------------------------------------------------------------------------
say "[2/5] writing ext4 file system (mkfs.ext4 -d)…"
# mkfs.ext4 of e2fsprogs 1.47.0 (Debian 12, Ubuntu 24.04) takes a directory, not a tarball,
# so the tarball is unpacked where its owners exist. The image is handed over as fd 3:
# namespace root, a subordinate id, cannot open a path in the user's cache but may reopen
# the descriptor while the file is world-writable (the folder is private to the user).
truncate -s "$DISK_SIZE" "$work/rootfs.img"
chmod 0666 "$work/rootfs.img"
as_image_root sh -c '
    set -eu
    tree=$(mktemp -d /var/tmp/sbw-rootfs.XXXXXX)
    trap "rm -rf \"$tree\"" EXIT
    trap "exit 1" HUP INT TERM
    tar -x -p --numeric-owner -C "$tree" --exclude="./dev/*"
    mkfs.ext4 -q -F -L sbw-root -m 0 -d "$tree" /proc/self/fd/3' \
    <"$work/rootfs.tar" 3<>"$work/rootfs.img"
chmod 0644 "$work/rootfs.img"
rm "$work/rootfs.tar"

# --- 3. qcow2 -----------------------------------------------------------------------------
say "[3/5] converting to qcow2 (qemu-img)…"
qemu-img convert -f raw -O qcow2 "$work/rootfs.img" "$work/rootfs.qcow2"
rm "$work/rootfs.img"

# --- 4. initramfs -------------------------------------------------------------------------
say "[4/5] building initramfs (busybox, ${INITRAMFS_MODULES[*]})…"
# newc_entry NAME MODE [MAJOR MINOR]: a cpio newc member without data. GNU cpio can only
# archive nodes that exist, and making /dev/console here would need root.
newc_entry() {
    local name=$1 namesize=$((${#1} + 1))
    printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
        0 "$2" 0 0 1 0 0 0 0 "${3:-0}" "${4:-0}" "$namesize" 0 "$name"
    head -c $(((4 - (110 + namesize) % 4) % 4)) /dev/zero  # pad header + name to 4 bytes
}
initramfs=$work/initramfs
mkdir -p "$initramfs"/{bin,dev,proc,sys,newroot,lib/modules}
install -m 0755 "$GUEST_DIR/initramfs-init" "$initramfs/init"
install -m 0755 "$work/out/busybox" "$initramfs/bin/busybox"
for applet in $("$initramfs/bin/busybox" --list); do
    [[ $applet == busybox ]] || ln -s busybox "$initramfs/bin/$applet"
done
find "$work/out/modules" -name '*.ko' -exec cp -t "$initramfs/lib/modules" {} +
{
    (cd "$initramfs" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet)
    newc_entry dev/console $((8#020600)) 5 1
    newc_entry 'TRAILER!!!' 0
} | gzip -9n >"$work/initrd.img"
mv "$work/out/vmlinuz" "$work/vmlinuz"

# --- 5. manifest --------------------------------------------------------------------------
say "[5/5] writing manifest…"
json_string() {
    local s=${1//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}
{
    printf '{\n'
    printf '  "recipe": %s,\n' "$(json_string "$NAME")"
    printf '  "hash": "%s",\n' "$hash"
    printf '  "built": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '  "suite": %s,\n' "$(json_string "$SUITE")"
    printf '  "kernel": "vmlinuz",\n'
    printf '  "initrd": "initrd.img",\n'
    printf '  "disk": "rootfs.qcow2",\n'
    printf '  "disk_format": "qcow2",\n'
    printf '  "disk_virtual_size": %d,\n' "$DISK_SIZE"
    printf '  "kernel_version": %s,\n' "$(json_string "$(cat "$work/out/kernel_version")")"
    printf '  "kernel_package": %s,\n' "$(json_string "$(cat "$work/out/kernel_package")")"
    printf '  "cmdline": %s,\n' "$(json_string "$CMDLINE")"
    printf '  "host_key": %s,\n' "$(json_string "$(cat "$work/out/host_key")")"
    printf '  "ssh_port": "%s",\n' "${SSH_PORTS[0]}"
    printf '  "ssh_ports": [%s],\n' "$(printf '"%s", ' "${SSH_PORTS[@]}" | sed 's/, $//')"
    printf '  "agent_port": "%s",\n' "$AGENT_PORT"
    printf '  "packages": [\n'
    sed 's/^.*$/    "&"/; $!s/$/,/' "$work/out/packages"
    printf '  ]\n'
    printf '}\n'
} >"$work/manifest.json"

rm -r "$work/out" "$work/initramfs" "$work/overlay.tar"
rm -f "$work/setup.sh"
chmod 0755 "$work"
if ! mv -T "$work" "$image_dir" 2>/dev/null; then
    [[ -f $image_dir/manifest.json ]] || die "cannot move the build to $image_dir"
    say "another build of $hash finished first; keeping it"
fi
point_link
say "built image $NAME ($hash) in ${SECONDS} s, rootfs.qcow2 $(du -h "$image_dir/rootfs.qcow2" | cut -f 1): $image_dir"
