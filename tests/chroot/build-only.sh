#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A build of the module for a kernel that is only built for, not booted:
# Debian's i386 686-pae, arm64 and armhf (armmp) kernels, with a cross
# compiler:
#   build-only.sh KVER SRC FLAVOUR MACHINE [KARCH CROSS_COMPILE]
# SRC is a copy of the project that this script may build in; FLAVOUR is a
# word the module's vermagic must contain (686 for 686-pae); MACHINE what
# readelf says of the module's machine ("Intel 80386", "AArch64", "ARM");
# KARCH and CROSS_COMPILE the kernel's ARCH and the cross compiler's prefix.
# Prints "ok - NAME" or "not ok - NAME: reason".
set -u
KVER=$1
SRC=$2
FLAVOUR=$3
MACHINE=$4
CROSS=${5:+ARCH=$5 CROSS_COMPILE=$6}
cd "$SRC" || exit 1

. "$(dirname "$0")/../lib/tap.sh"

# W=1 with warnings as errors, and nothing left for the module loader to
# resolve that the kernel does not export: modpost only warns about an
# undefined symbol (a 64-bit division becomes __umoddi3 on 32-bit) in some
# configurations, so its output is read as well as make's exit status.
t_build() {
	# shellcheck disable=SC2086
	make KDIR="/lib/modules/$KVER/build" $CROSS W=1 KCFLAGS=-Werror > /tmp/build.log 2>&1
	rc=$?
	cat /tmp/build.log
	if grep -E "modpost: .*undefined" /tmp/build.log; then
		echo "modpost: undefined symbols"
		return 1
	fi
	[ "$rc" = 0 ] || { echo "make exited $rc"; return 1; }
	if grep -E "warning:|error:" /tmp/build.log; then
		echo "the W=1 build printed warnings"
		return 1
	fi
	[ -f ttypair.ko ] || { echo "no ttypair.ko"; return 1; }
}

# The module is for this kernel and this architecture
t_vermagic() {
	[ -f ttypair.ko ] || { echo "no ttypair.ko"; return 1; }
	vm=$(modinfo -F vermagic ttypair.ko)
	echo "vermagic: $vm"
	case "$vm" in
	"$KVER "*) ;;
	*) echo "vermagic does not start with '$KVER '"; return 1 ;;
	esac
	case " $vm " in
	*" $FLAVOUR "* | *"-$FLAVOUR"*) ;;
	*) echo "vermagic does not name $FLAVOUR"; return 1 ;;
	esac
	readelf -h ttypair.ko | grep -E "Class|Machine"
	readelf -h ttypair.ko | grep -q "Machine: *$MACHINE\$" || { echo "not an object for $MACHINE"; return 1; }
}

step build_w1_werror t_build
step module_vermagic t_vermagic
