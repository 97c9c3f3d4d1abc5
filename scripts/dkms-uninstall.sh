#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make uninstall`: unload ttypair, remove every registered version from DKMS
# and from every kernel, and delete its sources under /usr/src; nothing that
# a package owns (TTYPAIR_FILES: the files it and uninstall-utils remove
# besides the sources).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/scripts/install-lib.sh"

[ "$(id -u)" = 0 ] || die "uninstalling needs root: run 'sudo make uninstall'"
# shellcheck disable=SC2086
refuse_if_packaged uninstall ${TTYPAIR_FILES:-}

if [ -d /sys/module/$NAME ]; then
	modprobe -r $NAME || die "ttypair is in use: close its ports first"
fi

if command -v dkms > /dev/null 2>&1; then
	for v in $(registered_versions); do
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
