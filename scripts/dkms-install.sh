#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make install` (without DESTDIR): register this tree with DKMS, build and
# install the module for every installed kernel that has headers, load it if
# the running kernel is one of them, and show `dkms status`.
#
# Missing tools (dkms, make, a compiler), the headers of the running kernel
# (or of KVER, if make was given one) and the headers metapackage of its
# flavour, which brings the headers of the kernels to come, are installed
# with the distribution's package manager when there is one.
#
# Environment (set by the Makefile): TTYPAIR_KVER, the kernel to make sure
# of; TTYPAIR_FILES, the files install-dkms and install-utils will write
# besides the sources.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/scripts/install-lib.sh"
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$SRC/dkms.conf")
DEST=/usr/src/$NAME-$VER
RUNNING=$(uname -r)
KVER=${TTYPAIR_KVER:-$RUNNING}

[ -n "$VER" ] || die "no PACKAGE_VERSION in $SRC/dkms.conf"
[ "$(id -u)" = 0 ] || die "installing needs root: run 'sudo make install'"
# shellcheck disable=SC2086
refuse_if_packaged install ${TTYPAIR_FILES:-}

# Tools
missing=
for t in dkms make gcc; do
	command -v $t > /dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
	[ "$(pkgmgr)" != none ] ||
		die "missing:$missing; install them with your distribution's package manager"
	# shellcheck disable=SC2086
	pkg_install $missing || die "could not install:$missing"
fi

ensure_headers "$KVER"

kernels=
for d in /lib/modules/*/build; do
	[ -d "$d" ] || continue
	k=${d%/build}
	kernels="$kernels ${k##*/}"
done
[ -n "$kernels" ] ||
	die "no kernel headers are installed: install $(headers_pkg "$KVER") (or the headers of the kernel you want ttypair for)"

# Sources: replace any registered version of ttypair by this tree.
for v in $(registered_versions); do
	say "removing $NAME $v from DKMS"
	dkms remove -m $NAME -v "$v" --all > /dev/null || true
done
rm -rf "$DEST"
make -s --no-print-directory -C "$SRC" install-dkms DESTDIR=
dkms add -m $NAME -v "$VER"

# dkms exits 77 (9 before dkms 3.0.10-8 of Debian and 3.0.11) for a
# kernel dkms.conf's BUILD_EXCLUSIVE_KERNEL excludes: older than ttypair
# supports. That is a skip, not a failure.
failed='' skipped='' built=''
for k in $kernels; do
	say "building for $k"
	rc=0
	dkms install -m $NAME -v "$VER" -k "$k" || rc=$?
	if [ "$rc" = 0 ]; then
		built="$built $k"
	elif { [ "$rc" = 77 ] || [ "$rc" = 9 ]; } && excluded "$k"; then
		say "skipped kernel $k: ttypair needs Linux 5.10 or newer"
		skipped="$skipped $k"
	else
		failed="$failed $k"
	fi
done

if [ -z "$built" ]; then
	say "ttypair is built for no kernel here"
elif [ ! -e /proc/modules ]; then
	say "this kernel ($RUNNING) cannot load modules at all (no module support:" \
	    "a container or a build machine); ttypair is installed for:$built" \
	    "and loads when one of those kernels runs"
elif [ -f /run/.containerenv ] || [ -f /.dockerenv ] ||
	grep -qa container= /proc/1/environ 2>/dev/null; then
	say "running in a container: modules cannot be loaded from here;" \
	    "ttypair is installed for:$built"
else
	case " $built " in
	*" $RUNNING "*)
		modprobe -r $NAME 2>/dev/null || true
		if modprobe $NAME; then
			say "loaded: $(ls /dev | grep -c '^ttyVP[AB]') ports (/dev/ttyVPA<n> <-> /dev/ttyVPB<n>)"
		else
			say "modprobe $NAME failed; see 'dmesg'. With Secure Boot on, enrol the key dkms" \
			    "signs with: sudo mokutil --import $(mok_certificate "$RUNNING"), then reboot"
		fi
		secure_boot_note "$RUNNING"
		;;
	*)
		say "the running kernel $RUNNING has no ttypair: it loads after a reboot into one of:$built"
		secure_boot_note "$RUNNING"
		;;
	esac
fi

dkms status -m $NAME
[ -z "$skipped" ] || say "skipped (older than Linux 5.10):$skipped"
[ -z "$failed" ] || die "the build failed for:$failed (see /var/lib/dkms/$NAME/$VER/build/make.log)"
