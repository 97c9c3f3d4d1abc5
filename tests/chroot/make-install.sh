#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make install` and `make uninstall` as a user runs them, inside a target
# chroot (whose running kernel, the build machine's, cannot load modules):
#   make-install.sh KVER SRC
set -u
KVER=$1
SRC=$2
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$SRC/dkms.conf")

. "$(dirname "$0")/../lib/tap.sh"

t_install() {
	make -C "$SRC" install > /tmp/install.log 2>&1 || { cat /tmp/install.log; return 1; }
	cat /tmp/install.log
	dkms status -m ttypair | grep -Fxq -e "ttypair/$VER, $KVER, $(uname -m): installed" \
		-e "ttypair, $VER, $KVER, $(uname -m): installed" ||
		{ echo "not installed for $KVER"; return 1; }
	ls /lib/modules/"$KVER"/updates/dkms/ttypair.ko* > /dev/null || return 1
	[ -f "/usr/src/ttypair-$VER/dkms.conf" ] || { echo "no /usr/src/ttypair-$VER"; return 1; }
	# ttypairctl, its manual pages and the udev rules, outside DKMS
	for f in /usr/local/bin/ttypairctl /usr/local/share/man/man4/ttypair.4 \
		/usr/local/share/man/man8/ttypairctl.8 /etc/udev/rules.d/60-ttypair.rules; do
		[ -f "$f" ] || { echo "make install did not install $f"; return 1; }
	done
	[ "$(/usr/local/bin/ttypairctl --version)" = "ttypairctl $VER" ] ||
		{ echo "ttypairctl --version: $(/usr/local/bin/ttypairctl --version)"; return 1; }
	cmp -s "$SRC/udev/60-ttypair.rules" /etc/udev/rules.d/60-ttypair.rules || return 1
	grep -q "cannot load modules" /tmp/install.log ||
		{ echo "no plain word that this kernel cannot load modules"; return 1; }
	# a second install replaces the first
	make -C "$SRC" install > /tmp/install2.log 2>&1 || { cat /tmp/install2.log; return 1; }
	[ "$(dkms status -m ttypair | wc -l)" = 1 ] || { dkms status -m ttypair; return 1; }
	# (by now the tree holds a built utils/ttypairctl)
	! ls /usr/src/ttypair-"$VER"/utils/ttypairctl 2>/dev/null ||
		{ echo "the ttypairctl binary was copied into the DKMS sources"; return 1; }
}

t_uninstall() {
	make -C "$SRC" uninstall || return 1
	[ -z "$(dkms status -m ttypair)" ] || { dkms status -m ttypair; return 1; }
	! ls /lib/modules/*/updates/dkms/ttypair.ko* 2>/dev/null || return 1
	! ls -d /usr/src/ttypair-* 2>/dev/null || return 1
	[ ! -e /var/lib/dkms/ttypair ] || { echo "/var/lib/dkms/ttypair left"; return 1; }
	for f in /usr/local/bin/ttypairctl /usr/local/share/man/man4/ttypair.4 \
		/usr/local/share/man/man8/ttypairctl.8 /etc/udev/rules.d/60-ttypair.rules; do
		[ ! -e "$f" ] || { echo "make uninstall left $f"; return 1; }
	done
}

step make_install t_install
step make_uninstall t_uninstall
