#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of a test guest: mount what the tests need, run them with their
# results on the second serial port (ttyS1), power off.
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

stty -F /dev/ttyS1 raw -echo 115200 2>/dev/null
exec 3>/dev/ttyS1
echo "GUEST-START $(uname -r)" >&3
sh "$T/guest-tests.sh" >&3 2>&1
echo "GUEST-DONE" >&3
exec 3>&-
sync
echo o > /proc/sysrq-trigger
# Wait for the power-off with shell builtins only: the disk goes away under
# us, and an exec of /bin/sleep could then fail and kill PID 1 (a panic).
while :; do :; done
