#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make install`: register this tree with DKMS, build and install the module
# for every installed kernel that has headers, load it if the running kernel
# is one of them, and show `dkms status`.
#
# Missing tools (dkms, make, a compiler) and the running kernel's headers are
# installed with the distribution's package manager when there is one.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
NAME=ttypair
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$SRC/dkms.conf")
DEST=/usr/src/$NAME-$VER
RUNNING=$(uname -r)

say() { echo "ttypair: $*"; }
die() { echo "ttypair: $*" >&2; exit 1; }

[ -n "$VER" ] || die "no PACKAGE_VERSION in $SRC/dkms.conf"
[ "$(id -u)" = 0 ] || die "installing needs root: run 'sudo make install'"

pkgmgr() {
	for p in apt-get dnf zypper; do
		command -v $p > /dev/null 2>&1 && { echo $p; return; }
	done
	echo none
}

# headers_pkg KVER: the package holding the build directory of KVER
headers_pkg() {
	case $(pkgmgr) in
	apt-get) echo "linux-headers-$1" ;;
	dnf) echo "kernel-devel-$1" ;;
	zypper) echo "kernel-default-devel" ;;
	*) echo "the headers (build directory) of kernel $1" ;;
	esac
}

pkg_install() {
	say "installing $* with $(pkgmgr)"
	case $(pkgmgr) in
	apt-get) DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" ;;
	dnf) dnf install -y "$@" ;;
	zypper) zypper --non-interactive install "$@" ;;
	*) return 1 ;;
	esac
}

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

# Headers of the running kernel, when this machine runs a kernel of its own
# distribution (not in a container or chroot, where uname -r is the host's).
if [ ! -d "/lib/modules/$RUNNING/build" ] && [ -d "/lib/modules/$RUNNING/kernel" ]; then
	if [ "$(pkgmgr)" != none ]; then
		pkg_install "$(headers_pkg "$RUNNING")" ||
			say "could not install $(headers_pkg "$RUNNING"); continuing with the kernels that have headers"
	else
		say "missing: $(headers_pkg "$RUNNING")"
	fi
fi

kernels=
for d in /lib/modules/*/build; do
	[ -d "$d" ] || continue
	k=${d%/build}
	kernels="$kernels ${k##*/}"
done
[ -n "$kernels" ] ||
	die "no kernel headers are installed: install $(headers_pkg "$RUNNING") (or the headers of the kernel you want ttypair for)"

# Sources: replace any registered version of ttypair by this tree.
for v in $(dkms status -m $NAME 2>/dev/null | sed -n "s/^$NAME[/,] *\([^,:]*\)[,:].*/\1/p" | sort -u); do
	say "removing $NAME $v from DKMS"
	dkms remove -m $NAME -v "$v" --all > /dev/null || true
done
rm -rf "$DEST"
mkdir -p "$DEST"
(cd "$SRC" && tar --exclude=./.git --exclude=./tests/out --exclude='*.o' \
	--exclude='*.ko' --exclude='.*.cmd' --exclude=./.generated \
	--exclude=./utils/ttypairctl --exclude=./out -cf - .) |
	tar -C "$DEST" -xf -
dkms add -m $NAME -v "$VER"

failed=
for k in $kernels; do
	say "building for $k"
	if ! dkms install -m $NAME -v "$VER" -k "$k"; then
		failed="$failed $k"
	fi
done

if [ ! -e /proc/modules ]; then
	say "this kernel ($RUNNING) cannot load modules at all (no module support:" \
	    "a container or a build machine); ttypair is installed for:$kernels" \
	    "and loads when one of those kernels runs"
elif [ -f /run/.containerenv ] || [ -f /.dockerenv ] ||
	grep -qa container= /proc/1/environ 2>/dev/null; then
	say "running in a container: modules cannot be loaded from here;" \
	    "ttypair is installed for:$kernels"
else
	case " $kernels " in
	*" $RUNNING "*)
		modprobe -r $NAME 2>/dev/null || true
		if modprobe $NAME; then
			say "loaded: $(ls /dev | grep -c '^ttyVP[AB]') ports (/dev/ttyVPA<n> <-> /dev/ttyVPB<n>)"
		else
			say "modprobe $NAME failed; see 'dmesg' (with Secure Boot on, enrol the DKMS key: mokutil --import /var/lib/dkms/mok.pub)"
		fi
		;;
	*)
		say "the running kernel $RUNNING has no headers: ttypair will load after a reboot into one of:$kernels"
		;;
	esac
fi

dkms status -m $NAME
[ -z "$failed" ] || die "the build failed for:$failed (see /var/lib/dkms/$NAME/$VER/build/make.log)"
