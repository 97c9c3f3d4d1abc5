#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make archlinux`: the Arch Linux packages ttypair-dkms and ttypairctl, built
# with makepkg from the PKGBUILDs in archlinux/ and the `make dist` tarball, into
# one directory (Debian has makepkg: apt install makepkg libarchive-tools).
#   scripts/make-archlinux.sh [OUTDIR [VERSION]]
# makepkg refuses to run as root; as root it is run as user nobody.
# --nodeps: this machine has no pacman database to satisfy dkms or glibc
# from (an Arch machine's makepkg checks them).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/out/archlinux}
VERSION=${2:-}
for t in makepkg bsdtar fakeroot zstd; do
	command -v $t > /dev/null || {
		echo "$t is missing: apt install makepkg libarchive-tools fakeroot zstd (Debian), pacman -S base-devel (Arch)" >&2
		exit 1
	}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tarball=$(sh "$SRC/scripts/make-dist.sh" "$tmp" ${VERSION:+"$VERSION"})
base=$(basename "$tarball" .tar.gz)
sum=$(sha256sum "$tarball" | cut -d ' ' -f 1)
# (the PKGBUILDs of the tarball, which say its version)
tar -C "$tmp" -xzf "$tarball" "$base/archlinux"
mkdir -p "$tmp/home" "$tmp/pkg" "$OUT"
for p in ttypair-dkms ttypairctl; do
	mkdir -p "$tmp/build/$p"
	sed "s/^sha256sums=('SKIP')\$/sha256sums=('$sum')/" "$tmp/$base/archlinux/$p/PKGBUILD" > "$tmp/build/$p/PKGBUILD"
	cp "$tarball" "$tmp/build/$p/"
done
run() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	chown -R nobody:nogroup "$tmp"
	run() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
fi
for p in ttypair-dkms ttypairctl; do
	(cd "$tmp/build/$p" &&
		run env HOME="$tmp/home" PKGDEST="$tmp/pkg" PKGEXT=.pkg.tar.zst \
			SOURCE_DATE_EPOCH="$(stat -c %Y "$tarball")" \
			makepkg --nodeps --noconfirm --cleanbuild --force)
done
cp "$tmp"/pkg/*.pkg.tar.zst "$OUT/"
ls -l "$OUT"
