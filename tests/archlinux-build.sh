#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make arch`: the Arch Linux packages, built by makepkg (Debian's) from
# archlinux/*/PKGBUILD and the `make dist` tarball, and what is in them: the
# files, and the metadata pacman and its dkms hooks go by.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
TTYPAIR_STAGE=archlinux
VER=$(ttypair_version)
D=$TTYPAIR_OUT/archlinux

t_version_match() {
	for p in ttypair-dkms ttypairctl; do
		v=$(sed -n 's/^pkgver=//p' "$TTYPAIR_SRC/archlinux/$p/PKGBUILD")
		[ "$v" = "$VER" ] || { echo "archlinux/$p/PKGBUILD says $v, dkms.conf says $VER"; return 1; }
	done
	echo "archlinux/*/PKGBUILD and dkms.conf: $VER"
}
t_check archlinux_pkgver_is_dkms_version t_version_match

rm -rf "$D"
if sh "$TTYPAIR_SRC/scripts/make-archlinux.sh" "$D" > "$D.log" 2>&1; then
	t_pass archlinux_makepkg_build
else
	t_fail archlinux_makepkg_build "$(tail -n 1 "$D.log")"
fi
cat "$D.log"

# files PKG: the files (not directories) of a package, sorted
files() { bsdtar -tf "$1" | grep -v '/$' | LC_ALL=C sort; }
# info PKG KEY: the values of KEY in the package's .PKGINFO
info() { bsdtar -xOf "$1" .PKGINFO | sed -n "s/^$2 = //p"; }

t_dkms_package() {
	pkg=$D/ttypair-dkms-$VER-1-any.pkg.tar.zst
	[ -f "$pkg" ] || { echo "no $pkg"; return 1; }
	files "$pkg"
	{
		printf '%s\n' .BUILDINFO .MTREE .PKGINFO usr/lib/udev/rules.d/60-ttypair.rules \
			usr/share/doc/ttypair-dkms/README.md
		(cd "$TTYPAIR_SRC" && git ls-files dkms.conf Kbuild Makefile src include compat 2>/dev/null ||
			find dkms.conf Kbuild Makefile src include compat -type f) | sed "s|^|usr/src/ttypair-$VER/|"
	} | LC_ALL=C sort > "$D/want"
	files "$pkg" | diff -u "$D/want" - || return 1
	# what pacman and the dkms hooks go by: the hooks take the module's
	# name and version from /usr/src/<name>-<version>
	[ "$(info "$pkg" arch)" = any ] || return 1
	[ "$(info "$pkg" pkgver)" = "$VER-1" ] || return 1
	[ "$(info "$pkg" depend)" = dkms ] || { echo "depends: $(info "$pkg" depend | xargs)"; return 1; }
	[ "$(info "$pkg" provides)" = TTYPAIR-MODULE ] || return 1
	bsdtar -xOf "$pkg" "usr/src/ttypair-$VER/dkms.conf" |
		grep -qx "PACKAGE_VERSION=\"$VER\"" || return 1
	info "$pkg" depend | grep -q headers && { echo "depends on kernel headers"; return 1; }
	# Arch's serial group is uucp: it has no dialout
	g=$(bsdtar -xOf "$pkg" usr/lib/udev/rules.d/60-ttypair.rules | grep -o 'GROUP="[^"]*"' | sort -u)
	[ "$g" = 'GROUP="uucp"' ] || { echo "the udev rules set $g, expected uucp"; return 1; }
	echo "ttypair-dkms: $(files "$pkg" | wc -l) files, depends on dkms, provides TTYPAIR-MODULE, session device group uucp"
}
t_check archlinux_dkms_package_contents t_dkms_package

t_ctl_package() {
	pkg=$D/ttypairctl-$VER-1-$(uname -m).pkg.tar.zst
	[ -f "$pkg" ] || { echo "no $pkg"; return 1; }
	files "$pkg"
	printf '%s\n' .BUILDINFO .MTREE .PKGINFO usr/bin/ttypairctl \
		usr/share/man/man4/ttypair.4.gz usr/share/man/man8/ttypairctl.8.gz |
		diff -u - <(files "$pkg") || return 1
	info "$pkg" depend | grep -qx TTYPAIR-MODULE || { echo "does not depend on TTYPAIR-MODULE"; return 1; }
	rm -rf "$D/x" && mkdir -p "$D/x" && bsdtar -C "$D/x" -xf "$pkg" || return 1
	v=$("$D/x/usr/bin/ttypairctl" --version) || return 1
	[ "$v" = "ttypairctl $VER" ] || { echo "ttypairctl --version: $v"; return 1; }
}
t_check archlinux_ttypairctl_package_contents t_ctl_package
