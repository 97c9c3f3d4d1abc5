#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module built for a 32-bit kernel: Debian 12's i386 686-pae kernel
# headers, in an i386 chroot (this machine's amd64 kernel runs its programs),
# with W=1 and -Werror (tests/chroot/build-only.sh). Nothing is booted: the
# point is what a 32-bit build catches (64-bit divisions, sizes, printk
# formats).
#   tests/i386-build.sh NAME SUITE
set -u
NAME=$1 SUITE=$2
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
TTYPAIR_STAGE=$NAME
W=$TTYPAIR_OUT/$NAME
ROOT=$W/root

# a build needs no dkms, udev or serial tools: a smaller chroot
TTYPAIR_CHROOT_BASE="gcc make libc6-dev kmod binutils"
mkdir -p "$W"
tar=$(chroot_tarball "$SUITE" "linux-headers-686-pae" "" i386) || {
	t_fail "$NAME/chroot" "mmdebstrap of $SUITE (i386) failed"
	exit 0
}
chroot_extract "$tar" "$ROOT"
KVER=$(ls "$ROOT/lib/modules" | tail -n 1)
# (build is a link that means something inside the chroot only)
[ -n "$KVER" ] && [ -f "$ROOT/usr/src/linux-headers-$KVER/Makefile" ] || {
	t_fail "$NAME/chroot" "no kernel headers in the i386 chroot"
	exit 0
}
log "Debian $SUITE i386: headers of $KVER, $(in_chroot "$ROOT" gcc --version | head -n 1)"
t_pass "$NAME/chroot"
copy_tree "$ROOT/root/ttypair-src"
in_chroot "$ROOT" sh /root/ttypair-src/tests/chroot/build-only.sh "$KVER" /root/ttypair-src 686 \
	> "$W/build-only.log" 2>&1
cat "$W/build-only.log"
collect_tap "$NAME" "$W/build-only.log"
expect_results "$NAME" "$(step_names "$TTYPAIR_SRC/tests/chroot/build-only.sh")"

[ -n "${TTYPAIR_KEEP:-}" ] || rm -rf "$ROOT"
exit 0
