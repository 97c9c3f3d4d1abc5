#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make dist`: the release tarball ttypair-<version>.tar.gz, made from git
# (the committed tree, HEAD) or, outside a git checkout, from the files.
#   scripts/make-dist.sh [OUTDIR [VERSION]]
# VERSION (for tests of upgrades) makes the tarball as if dkms.conf, the
# spec and the PKGBUILDs said that version.
# The tarball is reproducible: its files in name order, owned by root, all
# with the time SOURCE_DATE_EPOCH (default: the time of the commit, else of
# debian/changelog's entry), gzip without a name or time of its own. It is
# also the Debian orig tarball (scripts/make-deb.sh), so it leaves debian/
# out: the Debian source package brings its own (.gitattributes).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/out}
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$SRC/dkms.conf")
NEW=${2:-$VER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ttypair-$NEW" "$OUT"
# (a git checkout of its own: a copy of the tree inside another checkout,
# as the tests make, is made from its files)
if [ -e "$SRC/.git" ] && git -C "$SRC" rev-parse --git-dir > /dev/null 2>&1; then
	git=yes
else
	git=
fi
if [ -n "$git" ]; then
	git -C "$SRC" archive --format=tar HEAD | tar -C "$tmp/ttypair-$NEW" -xf -
else
	(cd "$SRC" && tar --exclude=./tests/out --exclude=./out --exclude=./debian --exclude='*.o' \
		--exclude='*.ko' --exclude=./.generated -cf - .) | tar -C "$tmp/ttypair-$NEW" -xf -
fi
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	{ [ -n "$git" ] && SOURCE_DATE_EPOCH=$(git -C "$SRC" log -1 --format=%ct); } ||
		SOURCE_DATE_EPOCH=$(date -d "$(sed -n 's/^ -- .*>  //p' "$SRC/debian/changelog" | head -n 1)" +%s)
fi
if [ "$NEW" != "$VER" ]; then
	d=$tmp/ttypair-$NEW
	sed -i "s/^PACKAGE_VERSION=\"$VER\"$/PACKAGE_VERSION=\"$NEW\"/" "$d/dkms.conf"
	sed -i "s/^Version:\( *\)$VER$/Version:\1$NEW/" "$d/rpm/ttypair.spec"
	sed -i "s/^pkgver=$VER$/pkgver=$NEW/" "$d"/archlinux/*/PKGBUILD
fi
tar -C "$tmp" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
	--mode='u+rw,go-w,a+rX' --format=gnu -cf - "ttypair-$NEW" | gzip -9n > "$OUT/ttypair-$NEW.tar.gz"
echo "$OUT/ttypair-$NEW.tar.gz"
