#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A developer's quick run of some guest tests on one kernel:
#   sh tests/dev-guest.sh TARGET PATTERN
# TARGET is a line of tests/targets (amd64, the debug kernel's too: its
# module unsigned, its signatures not enforced), PATTERN a shell pattern of
# the names of guest steps and ttypair-test tests ('bus_*|*bus*'). The
# target's chroot (cached, as make check makes it), the module built by hand
# with its Makefile for the chroot's kernel, the guest booted with
# TTYPAIR_GUEST_ONLY=PATTERN: the steps and tests that do not match are left
# out. No DKMS lifecycle, no package tests, no check that every test ran:
# this is for trying a change, not for the verdict, which is make check's.
# Results: tests/out/dev-guest/TARGET/results.txt (and console.log).
set -u
TARGET=$1 PATTERN=$2
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
. "$TTYPAIR_SRC/tests/lib/qemu.sh"
TTYPAIR_STAGE=dev-guest

line=$(awk -v t="$TARGET" '$1 == t' "$TTYPAIR_SRC/tests/targets")
[ -n "$line" ] || { echo "no target $TARGET in tests/targets" >&2; exit 2; }
# name make suite arch packages... extra
set -- $line
SUITE=$3 ARCH=$4
shift 4
EXTRA=$(eval echo "\${$#}")
PKGS=$(echo "$*" | sed 's/ [^ ]*$//')
[ "$EXTRA" != - ] || EXTRA=
[ "$ARCH" = amd64 ] || { echo "$TARGET: only amd64 targets" >&2; exit 2; }
# the debug kernel: built (or taken from the cache) as make check does
DEBS=
case $PKGS in
debug-kernel*)
	DEBS=$(sh "$TTYPAIR_SRC/tests/debug-kernel/build.sh") || { echo "the debug kernel did not build" >&2; exit 1; }
	PKGS=${PKGS#debug-kernel}
	;;
esac

VER=$(ttypair_version)
W=$TTYPAIR_OUT/dev-guest/$TARGET
ROOT=$W/root
TTYPAIR_RESULTS=$W/host-results
rm -rf "$W"
mkdir -p "$W"
tar=$(chroot_tarball "$SUITE" "$PKGS" "$EXTRA") || { echo "mmdebstrap of $SUITE failed" >&2; exit 1; }
chroot_extract "$tar" "$ROOT"
if [ -n "$DEBS" ]; then
	mkdir -p "$ROOT/root/debug-kernel"
	cp "$DEBS"/*.deb "$ROOT/root/debug-kernel/"
	in_chroot "$ROOT" sh -c 'dpkg -i /root/debug-kernel/*.deb' > "$W/debug-kernel-install.log" 2>&1 ||
		{ cat "$W/debug-kernel-install.log"; echo "dpkg -i of the debug kernel failed" >&2; exit 1; }
fi
KVER=$(chroot_kernels "$ROOT" | tail -n 1)
copy_tree "$ROOT/root/ttypair-src"
log "building ttypair for $KVER"
in_chroot "$ROOT" sh -c "cd /root/ttypair-src && make KVER=$KVER W=1 KCFLAGS=-Werror &&
	mkdir -p /lib/modules/$KVER/updates/dkms &&
	cp ttypair.ko /lib/modules/$KVER/updates/dkms/ && depmod $KVER" > "$W/build.log" 2>&1 ||
	{ cat "$W/build.log"; echo "the module did not build" >&2; exit 1; }
env="export TTYPAIR_GUEST_ONLY='$PATTERN' TTYPAIR_STRESS_SECONDS=20 TTYPAIR_FUZZ_SECONDS=15"
env="$env TTYPAIR_FUZZ_PARAMS=8 TTYPAIR_SOAK_MIB=16"
guest_prepare "$ROOT" "$VER" "$env" "$W/gcc.log" ||
	{ cat "$W/gcc.log"; echo "the guest's tests did not build" >&2; exit 1; }
guest_run "$TARGET" "$W" "$ROOT" "$KVER"
grep -a -E '^(ok|not ok|skip) - ' "$W/results.txt" | awk '{ n[$1 == "ok" ? "passed" : $1 == "skip" ? "skipped" : "failed"]++ }
	END { printf "%d passed, %d failed, %d skipped\n", n["passed"], n["failed"], n["skipped"] }'
problems=$(qemu_kernel_problems "$W/console.log")
[ -z "$problems" ] || { echo "kernel problems on the console:"; echo "$problems"; }
