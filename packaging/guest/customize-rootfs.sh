#!/bin/sh
# mmdebstrap customize hook of build-image.sh:
#   customize-rootfs.sh ROOT KERNEL_PACKAGE MODULE...
# Runs outside the chroot ROOT, as root or as root of mmdebstrap's user namespace, after
# the packages are installed. Debian packages are fetched with the chroot's own apt, so the
# host's apt (on Ubuntu it knows no Debian packages) plays no part.
#
# Installs the kernel's modules into ROOT and leaves in ROOT/sbw-out/ what the builder takes
# out of the chroot:
#   vmlinuz          the kernel
#   busybox          busybox-static, for the initramfs
#   modules/NN-*.ko  the modules the initramfs loads, MODULE... and their dependencies in
#                    load order (drivers built into the kernel are left out)
#   kernel_version   e.g. 6.1.0-57-cloud-amd64
#   kernel_package   e.g. linux-image-6.1.0-57-cloud-amd64=6.1.192-3
#   host_key         the SSH host public key, "ssh-ed25519 AAAA..."
#   packages         installed packages, one NAME=VERSION a line
set -eu
root=$1
kernel_package=$2
shift 2
out=$root/sbw-out
mkdir -p "$out/modules"

in_root() { chroot "$root" "$@"; }

# fetch PACKAGE DIR: unpack PACKAGE into ROOT/tmp/DIR and print its version.
fetch() {
    in_root sh -c '
        set -e
        cd /tmp
        apt-get download -q "$1" >&2
        deb=$(echo /tmp/"$1"_*.deb)
        dpkg-deb -x "$deb" "/tmp/$2"
        dpkg-deb -f "$deb" Version
        rm "$deb"' fetch "$1" "$2"
}

# Kernel. It is unpacked rather than installed: the package would pull in initramfs-tools.
case $kernel_package in
    linux-image-[0-9]*) image=$kernel_package ;;
    *) image=$(in_root apt-cache depends "$kernel_package" |
        sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1) ;;
esac
if [ -z "$image" ]; then
    echo "customize-rootfs: $kernel_package is no linux-image-<version> package and depends on none" >&2
    exit 1
fi
kernel_version=${image#linux-image-}
echo "$image=$(fetch "$image" kernel)" >"$out/kernel_package"
echo "$kernel_version" >"$out/kernel_version"
mkdir -p "$root/lib/modules"
mv "$root/tmp/kernel/lib/modules/$kernel_version" "$root/lib/modules/"
mv "$root/tmp/kernel/boot/vmlinuz-$kernel_version" "$out/vmlinuz"
rm -r "$root/tmp/kernel"
in_root depmod -a "$kernel_version"

# Initramfs modules in load order, as modprobe resolves them ("insmod PATH" or "builtin NAME").
for module; do
    in_root modprobe --set-version "$kernel_version" --show-depends "$module"
done >"$root/tmp/load-order"
n=0
loaded=" "
while read -r kind path _; do
    [ "$kind" = insmod ] || continue
    name=${path##*/}
    case $loaded in *" $name "*) continue ;; esac
    loaded="$loaded$name "
    n=$((n + 1))
    cp "$root$path" "$out/modules/$(printf %02d "$n")-$name"
done <"$root/tmp/load-order"
rm "$root/tmp/load-order"

fetch busybox-static busybox >/dev/null
mv "$root/tmp/busybox/bin/busybox" "$out/busybox"
rm -r "$root/tmp/busybox"

# One SSH host key, made now: every sandbox of this image presents it, and the host checks
# it against the manifest.
rm -f "$root"/etc/ssh/ssh_host_*
in_root ssh-keygen -q -t ed25519 -N '' -C sandbox -f /etc/ssh/ssh_host_ed25519_key
cut -d ' ' -f 1,2 "$root/etc/ssh/ssh_host_ed25519_key.pub" >"$out/host_key"
mkdir -p "$root/run/sshd"
in_root /usr/sbin/sshd -t
rmdir "$root/run/sshd"

in_root dpkg-query -W -f '${Package}=${Version}\n' >"$out/packages"

# The build host's resolver configuration does not belong in the image (last: apt above
# still needed it).
rm -f "$root/etc/resolv.conf"
: >"$root/etc/resolv.conf"
