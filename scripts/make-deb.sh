#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make deb`: build the Debian packages from this tree with
# dpkg-buildpackage -us -uc inside a clean chroot of Debian's stable release
# (13, trixie: its debhelper, lintian and policy), from the orig tarball
# that `make dist` makes; build them a second time in the same tree and
# compare the two byte for byte; run lintian on the .changes, and put the
# results into one directory.
#   scripts/make-deb.sh [OUTDIR [VERSION]]
# VERSION (for tests of upgrades) builds the tree as if dkms.conf and
# debian/changelog said that version.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/out/deb}
VERSION=${2:-}
TTYPAIR_SRC=$SRC
TTYPAIR_OUT=${TTYPAIR_OUT:-$SRC/tests/out}
. "$SRC/tests/lib/common.sh"
. "$SRC/tests/lib/chroot.sh"
TTYPAIR_STAGE=deb

[ "$(id -u)" = 0 ] || die "building in a chroot needs root: sudo make deb"
command -v mmdebstrap > /dev/null ||
	die "mmdebstrap is missing: apt-get install mmdebstrap"

# The build chroot: Debian 13 with the build dependencies, lintian, and
# what autopkgtest-pkg-dkms needs (a kernel's headers, dkms, autodep8).
tar=$(chroot_tarball trixie \
	"build-essential debhelper dh-dkms dh-python pybuild-plugin-pyproject python3-all python3-setuptools dpkg-dev fakeroot lintian autopkgtest autodep8 linux-headers-amd64" "")
work=$(mktemp -d "$TTYPAIR_OUT/debbuild.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "extracting the build chroot"
chroot_extract "$tar" "$work/root"

copy_tree "$work/root/build/ttypair"
if [ -n "$VERSION" ]; then
	sed -i "s/^PACKAGE_VERSION=\".*\"$/PACKAGE_VERSION=\"$VERSION\"/" \
		"$work/root/build/ttypair/dkms.conf"
	sed -i "1s/(\(.*\)-\([^-]*\))/($VERSION-\2)/" "$work/root/build/ttypair/debian/changelog"
fi
# The orig tarball: make dist of that tree (a copy, without git: its files)
upstream=$(dpkg-parsechangelog -l "$work/root/build/ttypair/debian/changelog" -S Version)
upstream=${upstream%-*}
orig=$(SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$work/root/build/ttypair/debian/changelog" -S Timestamp) \
	sh "$work/root/build/ttypair/scripts/make-dist.sh" "$work/root/build")
mv "$orig" "$work/root/build/ttypair_$upstream.orig.tar.gz"

log "dpkg-buildpackage -us -uc"
in_chroot "$work/root" sh -c 'cd /build/ttypair && dpkg-buildpackage -us -uc' ||
	die "dpkg-buildpackage failed"
# Twice in a row (the clean target must restore the tree), and the same
# packages again, bit for bit
log "dpkg-buildpackage again in the same tree"
mkdir -p "$work/root/build/first"
cp "$work"/root/build/*.deb "$work/root/build/first/"
if in_chroot "$work/root" sh -c 'cd /build/ttypair && dpkg-buildpackage -us -uc' \
	> "$work/second.log" 2>&1; then
	for f in "$work"/root/build/first/*.deb; do
		if cmp "$f" "$work/root/build/${f##*/}"; then
			echo "identical: ${f##*/}"
		else
			echo "different: ${f##*/}"
		fi
	done > "$work/reproducible.log"
else
	tail -n 30 "$work/second.log"
	echo "second build: failed" > "$work/reproducible.log"
fi
# ttypairctl of the package, run where it was built (its glibc)
in_chroot "$work/root" sh -c 'dpkg-deb -x /build/ttypair-utils_*.deb /tmp/xu && /tmp/xu/usr/bin/ttypairctl --version' \
	> "$work/utils-version.log" 2>&1
# python3-ttypair installed where it was built: Debian's python3 imports it
# and lists its pytest plugin
in_chroot "$work/root" sh -c 'dpkg -i /build/python3-ttypair_*_all.deb > /dev/null &&
	python3 -c "import ttypair, importlib.metadata as m; print(ttypair.__file__); print(*sorted(e.value for e in m.entry_points(group=\"pytest11\")))"' \
	> "$work/python-import.log" 2>&1
log "lintian --pedantic --info on the .changes"
in_chroot "$work/root" sh -c 'cd /build && lintian --pedantic --info --display-experimental ttypair_*.changes' \
	> "$work/lintian.log" 2>&1 || true
# autopkgtest (Testsuite: autopkgtest-pkg-dkms) in the same chroot, which
# has a kernel's headers: dkms's own test builds the module for it.
if [ -n "${TTYPAIR_AUTOPKGTEST:-}" ]; then
	log "autopkgtest (null runner in the disposable build chroot, so breaks-testbed is allowed)"
	if in_chroot "$work/root" sh -c 'cd /build && autopkgtest -U --ignore-restrictions=breaks-testbed ttypair_*.dsc ttypair-dkms_*_all.deb -- null' \
		> "$work/autopkgtest.log" 2>&1; then
		echo "autopkgtest: exit 0" >> "$work/autopkgtest.log"
	else
		echo "autopkgtest: exit $?" >> "$work/autopkgtest.log"
	fi
fi
mkdir -p "$OUT"
cp "$work"/root/build/ttypair_* "$work"/root/build/ttypair-dkms_* \
	"$work"/root/build/ttypair-utils* "$work"/root/build/python3-ttypair* "$OUT"/
[ ! -f "$work/autopkgtest.log" ] || cp "$work/autopkgtest.log" "$OUT/"
cp "$work/lintian.log" "$OUT/lintian.log"
cp "$work/reproducible.log" "$work/utils-version.log" "$work/python-import.log" "$OUT/"
ls -l "$OUT"
echo "--- lintian"
cat "$OUT/lintian.log"
