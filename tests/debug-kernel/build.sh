#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The debug kernel of `make check` (and of `make debug-kernel`): Debian's
# linux-source-6.12 built in a chroot of trixie, with trixie's gcc (the one
# dkms uses for the module there), configured as allnoconfig plus
# ttypair-debug.config (KASAN, lockdep, atomic-sleep, debug objects,
# kmemleak, UBSAN, list debugging, soft-lockup and hung-task detection) and
# packaged with `make bindeb-pkg` as linux-image and linux-headers .debs.
# Its modules are signed with a key the build makes; that key and its
# certificate are kept beside the .debs (signing_key.pem, signing_key.x509),
# for dkms to sign ttypair with (tests/target.sh).
#
#   tests/debug-kernel/build.sh
#
# prints the directory holding the two .debs. They are cached under
# $TTYPAIR_CACHE/debug-kernel/, keyed by the source package's version, the
# configuration fragment and DEBUG_KERNEL_RECIPE; a second run finds them
# there.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
TTYPAIR_STAGE=debug-kernel

SUITE=trixie
SRCPKG=linux-source-6.12
FRAGMENT=$TTYPAIR_SRC/tests/debug-kernel/ttypair-debug.config
# What building a kernel and packaging it needs (the kernel's own
# Build-Depends-Arch, scripts/package/mkdebian), besides gcc and make;
# openssl makes the module signing key.
BUILD_PKGS="$SRCPKG bc bison flex cpio kmod libelf-dev libssl-dev openssl rsync dpkg-dev debhelper xz-utils"
# Bump when the way the kernel is built or packaged changes.
DEBUG_KERNEL_RECIPE=2

command -v mmdebstrap > /dev/null ||
	die "mmdebstrap is missing: run 'sudo make check' once, or apt-get install mmdebstrap"
[ "$(id -u)" = 0 ] || die "building in a chroot needs root: run 'sudo make debug-kernel'"
tar=$(chroot_tarball "$SUITE" "$BUILD_PKGS" "") || die "mmdebstrap of $SUITE failed"
work=$TTYPAIR_CACHE/debug-kernel
mkdir -p "$work"
(
	flock 9
	root=$work/build-root
	chroot_extract "$tar" "$root"
	srcver=$(in_chroot "$root" dpkg-query -W -f '${Version}' "$SRCPKG")
	key=$(cat "$FRAGMENT" | { cat; echo "$DEBUG_KERNEL_RECIPE $BUILD_PKGS $srcver"; } |
		sha256sum | cut -c1-16)
	out=$work/$SRCPKG-$srcver-$key
	if ls "$out"/linux-image-*.deb "$out"/linux-headers-*.deb "$out/signing_key.pem" > /dev/null 2>&1; then
		log "cached: $out" >&2
		rm -rf "$root"
		echo "$out"
		exit 0
	fi
	log "building $SRCPKG $srcver with $(basename "$FRAGMENT") (about 20 minutes on 2 cores)" >&2
	cp "$FRAGMENT" "$root/root/ttypair-debug.config"
	start=$(date +%s)
	# shellcheck disable=SC2016
	if ! in_chroot "$root" sh -c '
		set -e
		mkdir -p /root/build
		cd /root/build
		tar -xf /usr/src/'"$SRCPKG"'.tar.xz
		cd '"$SRCPKG"'
		KCONFIG_ALLCONFIG=/root/ttypair-debug.config make -s allnoconfig
		# every line of the fragment must have survived Kconfig
		grep -v "^#" /root/ttypair-debug.config | grep . | while read -r l; do
			grep -qxF "$l" .config || { echo "not in .config: $l"; exit 1; }
		done
		export KBUILD_BUILD_USER=ttypair KBUILD_BUILD_HOST=ttypair-tests
		# The build first: bindeb-pkg runs dpkg-buildpackage -j1,
		# which would make it serial.
		make -j"$(nproc)" all
		# -d: the generated Build-Depends name build-essential, a
		# package that is not installed (gcc, make and libc6-dev are)
		make DPKG_FLAGS=-d bindeb-pkg
	' > "$work/build.log" 2>&1; then
		tail -n 30 "$work/build.log" >&2
		rm -rf "$root"
		die "the debug kernel did not build; see $work/build.log"
	fi
	rm -rf "$out.part"
	mkdir -p "$out.part"
	cp "$root"/root/build/linux-image-*.deb "$root"/root/build/linux-headers-*.deb "$out.part/"
	cp "$root/root/build/$SRCPKG/.config" "$out.part/config"
	cp "$root/root/build/$SRCPKG/certs/signing_key.pem" \
		"$root/root/build/$SRCPKG/certs/signing_key.x509" "$out.part/"
	cp "$work/build.log" "$out.part/build.log"
	rm -f "$out.part"/linux-image-*-dbg_*.deb
	rm -rf "$out" "$root"
	mv "$out.part" "$out"
	log "built in $(( $(date +%s) - start )) s: $(cd "$out" && ls ./*.deb | xargs)" >&2
	echo "$out"
) 9> "$work/.lock"
