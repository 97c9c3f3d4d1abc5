#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make dist`: the release tarball ttypair-<version>.tar.gz, made from git
# (the committed tree, HEAD) or, outside a git checkout, from the files.
#   scripts/make-dist.sh [OUTDIR [VERSION]]
# VERSION (for tests of upgrades) makes the tarball as if dkms.conf, the
# spec and debian/changelog said that version.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/out}
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$SRC/dkms.conf")
NEW=${2:-$VER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ttypair-$NEW" "$OUT"
if git -C "$SRC" rev-parse --git-dir > /dev/null 2>&1; then
	git -C "$SRC" archive --format=tar HEAD | tar -C "$tmp/ttypair-$NEW" -xf -
else
	(cd "$SRC" && tar --exclude=./tests/out --exclude=./out --exclude='*.o' \
		--exclude='*.ko' --exclude=./.generated -cf - .) | tar -C "$tmp/ttypair-$NEW" -xf -
fi
if [ "$NEW" != "$VER" ]; then
	d=$tmp/ttypair-$NEW
	sed -i "s/^PACKAGE_VERSION=\"$VER\"$/PACKAGE_VERSION=\"$NEW\"/" "$d/dkms.conf"
	sed -i "s/^Version:\( *\)$VER$/Version:\1$NEW/" "$d/rpm/ttypair.spec"
	sed -i "1s/($VER)/($NEW)/" "$d/debian/changelog"
fi
tar -C "$tmp" --owner=0 --group=0 --numeric-owner -czf "$OUT/ttypair-$NEW.tar.gz" "ttypair-$NEW"
echo "$OUT/ttypair-$NEW.tar.gz"
