#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module built, with W=1 and -Werror (tests/chroot/build-only.sh), for
# Debian kernels of other architectures, which nothing boots here:
#   i386   686-pae: what a 32-bit build catches (64-bit divisions, sizes,
#          printk formats)
#   arm64  arm64, and armhf armmp (32-bit ARM)
# each with Debian's cross compiler (gcc-i686-linux-gnu for i386: so the
# build needs no kernel that runs i386 programs) in an amd64 chroot,
# against that architecture's headers. Their packages depend on the
# compiler of their own architecture, which cannot be installed beside
# this machine's, so the headers are unpacked rather than installed; the
# kernel's build tools (linux-kbuild, Multi-Arch: foreign) and the common
# headers are installed, in the same version.
#   tests/cross-build.sh NAME SUITE ARCH
set -u
NAME=$1 SUITE=$2 ARCH=$3
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
TTYPAIR_STAGE=$NAME
W=$TTYPAIR_OUT/$NAME
ROOT=$W/root

case $ARCH in
i386) FLAVOUR=686-pae MACHINE="Intel 80386" KARCH=x86 CROSS=i686-linux-gnu- CC_PKG=gcc-i686-linux-gnu ;;
arm64) FLAVOUR=arm64 MACHINE=AArch64 KARCH=arm64 CROSS=aarch64-linux-gnu- CC_PKG=gcc-aarch64-linux-gnu ;;
armhf) FLAVOUR=armmp MACHINE=ARM KARCH=arm CROSS=arm-linux-gnueabihf- CC_PKG=gcc-arm-linux-gnueabihf ;;
*) t_fail "$NAME/chroot" "no such architecture: $ARCH"; exit 0 ;;
esac

# a build needs no dkms, udev or serial tools: a smaller chroot (perl: W=1
# runs the kernel's kernel-doc)
TTYPAIR_CHROOT_BASE="gcc make libc6-dev kmod binutils perl"
mkdir -p "$W"
tar=$(chroot_tarball "$SUITE" "$CC_PKG" "" "amd64,$ARCH") || {
	t_fail "$NAME/chroot" "mmdebstrap of $SUITE ($ARCH) failed"
	exit 0
}
chroot_extract "$tar" "$ROOT"
in_chroot "$ROOT" sh -c '
	set -eu
	arch=$1 flavour=$2
	apt-get update -q > /dev/null
	hdr=$(apt-cache depends "linux-headers-$flavour:$arch" |
		sed -n "s/^ *Depends: \(linux-headers-[0-9][^:]*\).*/\1/p" | head -n 1)
	ver=$(apt-cache show "$hdr:$arch" | sed -n "s/^Version: //p" | head -n 1)
	deps=$(apt-cache show "$hdr:$arch" | sed -n "s/^Depends: //p" | head -n 1 | tr "," "\n" |
		sed -n "s/^ *\(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p" | sed "s/\$/=$ver/")
	echo "$hdr $ver; installing $(echo $deps)"
	apt-get install -y -q --no-install-recommends $deps > /tmp/deps.log 2>&1 ||
		{ cat /tmp/deps.log; exit 1; }
	cd /tmp && apt-get download -q "$hdr:$arch=$ver" > /dev/null
	dpkg-deb -x /tmp/"${hdr}"_*.deb /tmp/h
	cp -a /tmp/h/usr/src/. /usr/src/
	kver=${hdr#linux-headers-}
	mkdir -p "/lib/modules/$kver"
	ln -sfn "/usr/src/linux-headers-$kver" "/lib/modules/$kver/build"
' sh "$ARCH" "$FLAVOUR" > "$W/headers.log" 2>&1 || {
	cat "$W/headers.log"
	t_fail "$NAME/chroot" "the $ARCH headers of $SUITE could not be installed"
	exit 0
}
cat "$W/headers.log"
KVER=$(ls "$ROOT/lib/modules" | grep -- "-$FLAVOUR\$" | tail -n 1)
# (build is a link that means something inside the chroot only)
[ -n "$KVER" ] && [ -f "$ROOT/usr/src/linux-headers-$KVER/Makefile" ] || {
	t_fail "$NAME/chroot" "no $ARCH kernel headers in the chroot"
	exit 0
}
log "Debian $SUITE $ARCH: headers of $KVER, $(in_chroot "$ROOT" "${CROSS}gcc" --version | head -n 1)"
t_pass "$NAME/chroot"
copy_tree "$ROOT/root/ttypair-src"
in_chroot "$ROOT" sh /root/ttypair-src/tests/chroot/build-only.sh "$KVER" /root/ttypair-src \
	"${FLAVOUR%-pae}" "$MACHINE" ${KARCH:+"$KARCH" "$CROSS"} > "$W/build-only.log" 2>&1
cat "$W/build-only.log"
collect_tap "$NAME" "$W/build-only.log"
expect_results "$NAME" "$(step_names "$TTYPAIR_SRC/tests/chroot/build-only.sh")"

# The row of the kernel matrix (tests/matrix-report.sh)
ko=$ROOT/root/ttypair-src/ttypair.ko
build=failed vm=- mcc=- mv=-
if grep -q "^PASS $NAME/build_w1_werror\$" "$TTYPAIR_RESULTS"; then
	build="ok (make W=1 -Werror)"
	vm=$(modinfo -F vermagic "$ko")
	mcc=$(readelf -p .comment "$ko" | grep -o 'GCC: .*' | sort -u | head -n 1)
	mv=$(modprobe --dump-modversions "$ko" 2>/dev/null | wc -l)
	if [ "$mv" -gt 0 ]; then mv="$mv CRCs"; else mv="none (CONFIG_MODVERSIONS off)"; fi
fi
{
	echo "suite=$SUITE"
	echo "arch=$ARCH ($FLAVOUR), built only"
	echo "kernel=$KVER"
	echo "compiler=$mcc"
	echo "dkms=-"
	echo "vermagic=$vm"
	echo "modversions=$mv"
	echo "build=$build"
	echo "date=$(date -u +%Y-%m-%d)"
} > "$W/matrix.txt"

[ -n "${TTYPAIR_KEEP:-}" ] || rm -rf "$ROOT"
exit 0
