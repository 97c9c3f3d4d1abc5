#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of a test guest: mount what the tests need, run them with their
# results on a port of their own, power off. That port is the PC's second
# serial port, ttyS1, unless the kernel's command line names another
# (ttypair_results=/dev/hvc0: arm64's virtio console; tests/lib/qemu.sh).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 HOME=/root
T=/opt/ttypair-tests

mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mountpoint -q /run || mount -t tmpfs tmpfs /run
# ptys (socat, the benchmarks): Debian's initramfs mounts devpts, a kernel
# booted without one (the debug kernel) needs it here
mkdir -p /dev/pts
mountpoint -q /dev/pts || mount -t devpts -o gid=5,mode=0620 devpts /dev/pts
mount -o remount,rw /
hostname ttypair-guest

res=${ttypair_results:-/dev/ttyS1}
unset ttypair_results
case $res in
/dev/hvc*)
	modprobe virtio_console 2>/dev/null
	i=0
	while [ ! -c "$res" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	;;
esac
stty -F "$res" raw -echo 115200 2>/dev/null
exec 3>"$res"
echo "GUEST-START $(uname -r)" >&3
sh "$T/guest-tests.sh" >&3 2>&1
echo "GUEST-DONE" >&3
exec 3>&-
sync
echo o > /proc/sysrq-trigger
# Wait for the power-off with shell builtins only: the disk goes away under
# us, and an exec of /bin/sleep could then fail and kill PID 1 (a panic).
while :; do :; done
