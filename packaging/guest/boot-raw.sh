#!/usr/bin/env bash
# boot-raw.sh [--accel kvm|tcg] [--smp VCPUS] [IMAGE_DIR]
#
# Benchmark baseline: boots a guest image with plain qemu-system-x86_64 (direct kernel boot,
# no libvirt), waits for the console line "sbw-guest: ready", prints
#   raw boot to ready: N ms
# and kills QEMU. N is wall time from starting QEMU to reading that line. The disk is opened
# with snapshot=on, so the image is never changed. IMAGE_DIR defaults to the cached image
# "minimal" (build-image.sh); the accelerator to kvm when /dev/kvm is usable, else tcg.
# Prints which accelerator it used on stderr.
set -euo pipefail

MEMORY_MB=256
TIMEOUT_S=300  # TCG on a loaded machine is slow; a healthy KVM boot takes about a second

usage() {
    echo "usage: $0 [--accel kvm|tcg] [--smp VCPUS] [IMAGE_DIR]" >&2
    exit 2
}
die() {
    printf 'boot-raw: error: %s\n' "$*" >&2
    exit 1
}

accel=
vcpus=1
image_dir=${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-workbench/images/minimal
while (($#)); do
    case $1 in
        --accel) (($# >= 2)) || usage; accel=$2; shift 2 ;;
        --accel=*) accel=${1#--accel=}; shift ;;
        --smp) (($# >= 2)) || usage; vcpus=$2; shift 2 ;;
        -h | --help) usage ;;
        -*) usage ;;
        *) image_dir=$1; shift ;;
    esac
done
# kvm_pvm (KVM without hardware virtualization, found in nested sandboxes) is not usable:
# measured, an unmodified kernel takes 130 s to start there and then dies with a KVM
# emulation failure (cmpxchg16b, xrstor).
if [[ -z $accel ]]; then
    if [[ -r /dev/kvm && -w /dev/kvm && ! -d /sys/module/kvm_pvm ]]; then accel=kvm; else accel=tcg; fi
fi
case $accel in
    kvm) cpu=(-cpu host); extra_cmdline= ;;
    # The workbench's TCG domains boot with norandmaps as well (DomainSpec.cpp): TCG reuses the
    # translated code of earlier processes only when their maps do not move.
    tcg) cpu=(); extra_cmdline=' norandmaps' ;;
    *) usage ;;
esac

manifest=$image_dir/manifest.json
[[ -f $manifest ]] || die "no image in $image_dir (run build-image.sh)"
# manifest_get KEY: a string field of the manifest, which build-image.sh writes one per line.
manifest_get() {
    sed -n "s/^  \"$1\": \"\(.*\)\",\?$/\1/p" "$manifest"
}
kernel=$image_dir/$(manifest_get kernel)
initrd=$image_dir/$(manifest_get initrd)
disk=$image_dir/$(manifest_get disk)
disk_format=$(manifest_get disk_format)
cmdline=$(manifest_get cmdline)$extra_cmdline
ssh_port=$(manifest_get ssh_port)
agent_port=$(manifest_get agent_port)

console_log=$(mktemp)
qemu_pid=
cleanup() {
    [[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
    rm -f "$console_log"
}
trap cleanup EXIT

start=${EPOCHREALTIME/./}
exec {console}< <(exec qemu-system-x86_64 \
    -nodefaults -no-user-config -display none \
    -machine q35 -accel "$accel" "${cpu[@]}" -smp "$vcpus" -m "$MEMORY_MB" \
    -kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
    -drive "file=$disk,format=$disk_format,if=virtio,snapshot=on" \
    -device virtio-serial-pci,id=vser \
    -chardev null,id=ssh -device "virtserialport,bus=vser.0,chardev=ssh,name=$ssh_port" \
    -chardev null,id=agent -device "virtserialport,bus=vser.0,chardev=agent,name=$agent_port" \
    -device virtio-balloon-pci -device virtio-rng-pci \
    -serial stdio \
    </dev/null 2>&1)
qemu_pid=$!

ready=
deadline=$((SECONDS + TIMEOUT_S))
while ((SECONDS < deadline)) && IFS= read -r -t $((deadline - SECONDS)) -u "$console" line; do
    line=${line%$'\r'}
    printf '%s\n' "$line" >>"$console_log"
    if [[ $line == 'sbw-guest: ready' ]]; then
        ready=${EPOCHREALTIME/./}
        break
    fi
    [[ $line == 'KVM internal error'* ]] && break  # QEMU stops the guest but keeps running
done
if [[ -z $ready ]]; then
    echo "boot-raw: guest not ready (accel $accel): timeout after ${TIMEOUT_S} s, QEMU ended or KVM failed; console:" >&2
    cat "$console_log" >&2
    exit 1
fi
echo "boot-raw: accel $accel, image $image_dir" >&2
echo "raw boot to ready: $(((ready - start) / 1000)) ms"
