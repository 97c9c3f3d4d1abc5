#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make uninstall`: unload ttypair, remove every registered version from DKMS
# and from every kernel, and delete its sources under /usr/src.
set -eu
NAME=ttypair

say() { echo "ttypair: $*"; }
[ "$(id -u)" = 0 ] || { echo "ttypair: uninstalling needs root: run 'sudo make uninstall'" >&2; exit 1; }

if [ -d /sys/module/$NAME ]; then
	modprobe -r $NAME || { say "ttypair is in use: close its ports first" >&2; exit 1; }
fi

if command -v dkms > /dev/null 2>&1; then
	for v in $(dkms status -m $NAME 2>/dev/null | sed -n "s/^$NAME[/,] *\([^,:]*\)[,:].*/\1/p" | sort -u); do
		say "removing $NAME $v from DKMS"
		dkms remove -m $NAME -v "$v" --all
	done
fi
rm -rf /usr/src/$NAME-*

# Anything left by hand-made installs
for f in /lib/modules/*/updates/dkms/$NAME.ko* /lib/modules/*/extra/$NAME.ko*; do
	[ -e "$f" ] || continue
	k=${f#/lib/modules/}
	k=${k%%/*}
	rm -f "$f"
	depmod -a "$k"
done
say "removed"
command -v dkms > /dev/null 2>&1 && dkms status -m $NAME
exit 0
