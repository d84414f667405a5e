#!/usr/bin/env bash
# Makes sure a libvirt daemon answers on the URI the workbench will use (libvirt's conventions:
# $LIBVIRT_DEFAULT_URI, else qemu:///system for root and qemu:///session for other users).
#   - qemu:///session: libvirt starts a per-user daemon on demand; nothing to do.
#   - qemu:///system under systemd: start the libvirtd and virtlogd units.
#   - qemu:///system without a service manager (containers, CI): start virtlogd as a daemon
#     and libvirtd under tini, which reaps its QEMU processes.
set -euo pipefail
uri=${LIBVIRT_DEFAULT_URI:-}
if [ -z "$uri" ]; then
    if [ "$(id -u)" -eq 0 ]; then uri=qemu:///system; else uri=qemu:///session; fi
fi

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

# Without udev (containers, CI) /dev/kvm keeps the kernel's root-only mode, so QEMU, running as
# its own user in the kvm group, cannot use it; libvirt then also re-probes QEMU's capabilities
# on every domain start (tens of seconds each). Apply the mode udev's default rule gives it.
if [ -c /dev/kvm ] && getent group kvm >/dev/null && [ "$(stat -c %G /dev/kvm)" != kvm ]; then
    echo "libvirt: giving /dev/kvm to group kvm, mode 0660 (as udev would)"
    "${sudo[@]}" chgrp kvm /dev/kvm
    "${sudo[@]}" chmod 0660 /dev/kvm
fi

# Sandboxes restored from one saved state hold many identical pages; the kernel's same-page
# merging (KSM) shares them once asked to (QEMU marks guest memory mergeable by default). Where
# the kernel has it and this user may switch it on without a password prompt; a setting that
# holds until the next boot.
if [ -e /sys/kernel/mm/ksm/run ] && [ "$(cat /sys/kernel/mm/ksm/run)" = 0 ]; then
    ksm_sudo=()
    [ "$(id -u)" -eq 0 ] || ksm_sudo=(sudo -n)
    if echo 1 | "${ksm_sudo[@]}" tee /sys/kernel/mm/ksm/run >/dev/null 2>&1; then
        echo "libvirt: kernel same-page merging (KSM) switched on for the sandboxes' memory"
    else
        echo "libvirt: kernel same-page merging (KSM) is off and cannot be switched on here"
    fi
fi

if virsh -q -c "$uri" version >/dev/null 2>&1; then
    echo "libvirt: $uri answers"
    exit 0
fi

# without_inherited_fds COMMAND...: runs COMMAND with only stdin, stdout and stderr open.
without_inherited_fds() {
    (
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            if ((fd > 2 && fd != 255)); then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        exec "$@"
    )
}

case "$uri" in
    qemu:///system)
        if [ -d /run/systemd/system ]; then
            "${sudo[@]}" systemctl start virtlogd.socket libvirtd.socket libvirtd.service
        else
            # The daemons outlive this script: they must not inherit its caller's open files
            # (a test runner's lock file would stay locked for as long as libvirtd runs).
            pgrep -x virtlogd >/dev/null || without_inherited_fds "${sudo[@]}" virtlogd -d
            # libvirtd's QEMU processes are orphans, reaped by the nearest subreaper (else PID 1).
            # Destroying a domain waits until its QEMU is gone, zombie or not, polling every
            # 200 ms: under a container's PID 1 that reaps seldom, that took 1.2-2 s per domain.
            # tini -s makes itself that subreaper and reaps at once, as systemd would.
            # sh starts it in the background and ends, so nothing here keeps the caller's files.
            pgrep -x libvirtd >/dev/null || without_inherited_fds "${sudo[@]}" sh -c \
                'setsid tini -s -- libvirtd </dev/null >>/var/log/libvirt/libvirtd.log 2>&1 &'
        fi
        ;;
esac
for _ in $(seq 1 50); do
    if virsh -q -c "$uri" version >/dev/null 2>&1; then
        echo "libvirt: $uri answers"
        exit 0
    fi
    sleep 0.2
done
echo "libvirt: $uri does not answer:" >&2
virsh -c "$uri" version >&2 || true
exit 1
