#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb` twice for the tests: this version (N, with autopkgtest) into
# tests/out/deb/n, and the same tree as the next patch version (N+1) into
# tests/out/deb/n1 for the upgrade test. Checks lintian and autopkgtest.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
TTYPAIR_STAGE=deb
VER=$(ttypair_version)
NEXT=${VER%.*}.$(( ${VER##*.} + 1 ))
D=$TTYPAIR_OUT/deb

t_version_match() {
	cl=$(dpkg-parsechangelog -l "$TTYPAIR_SRC/debian/changelog" -S Version 2>/dev/null ||
		sed -n '1s/^ttypair (\([^)]*\)).*/\1/p' "$TTYPAIR_SRC/debian/changelog")
	# upstream version, then the Debian revision (3.0 (quilt))
	[ "${cl%-*}" = "$VER" ] && [ "${cl%-*}" != "$cl" ] ||
		{ echo "debian/changelog says $cl, dkms.conf says $VER: expected $VER-<revision>"; return 1; }
	echo "debian/changelog: $cl, dkms.conf: $VER"
}
t_check deb_version_is_dkms_version t_version_match

if TTYPAIR_AUTOPKGTEST=1 sh "$TTYPAIR_SRC/scripts/make-deb.sh" "$D/n" > "$D.n.log" 2>&1; then
	t_pass deb_build
else
	tail -n 30 "$D.n.log"
	t_fail deb_build "$(tail -n 1 "$D.n.log")"
fi
cat "$D.n.log"
if sh "$TTYPAIR_SRC/scripts/make-deb.sh" "$D/n1" "$NEXT" > "$D.n1.log" 2>&1; then
	t_pass deb_build_next_version
else
	cat "$D.n1.log"
	t_fail deb_build_next_version "$(tail -n 1 "$D.n1.log")"
fi

t_contents() {
	deb=$(ls "$D"/n/ttypair-dkms_"$VER"-*_all.deb) || return 1
	dpkg-deb -c "$deb" | awk '{ print $6 }'
	for f in dkms.conf Kbuild Makefile src/main.c include/ttypair.h compat/probes/tty_write_ssize.c; do
		dpkg-deb -c "$deb" | grep -q "\./usr/src/ttypair-$VER/$f\$" ||
			{ echo "/usr/src/ttypair-$VER/$f missing"; return 1; }
	done
	# dh_installudev's directory: /lib/udev/rules.d up to Debian 12,
	# /usr/lib/udev/rules.d from 13 on
	dpkg-deb -c "$deb" | grep -Eq '\./(usr/)?lib/udev/rules\.d/60-ttypair\.rules$' ||
		{ echo "udev rules missing"; return 1; }
	dpkg-deb -c "$deb" | grep -q "\./usr/share/doc/ttypair-dkms/README.Debian" ||
		{ echo "no README.Debian (Secure Boot)"; return 1; }
	dpkg-deb -x "$deb" "$D/x"
	grep -q "^PACKAGE_VERSION=\"$VER\"\$" "$D/x/usr/src/ttypair-$VER/dkms.conf" || return 1
	[ "$(dpkg-deb -f "$deb" Architecture)" = all ] || return 1
	[ "$(dpkg-deb -f "$deb" Section)" = kernel ] || return 1
	dpkg-deb -f "$deb" Depends | grep -q dkms || { echo "no dependency on dkms"; return 1; }
}
t_check deb_contents t_contents

# 3.0 (quilt): the orig tarball is make dist's, debian/ apart
t_source() {
	dsc=$(ls "$D"/n/ttypair_*.dsc) || return 1
	cat "$dsc"
	grep -qx "Format: 3.0 (quilt)" "$dsc" || return 1
	# ttypairctl is for Linux only, on every architecture
	grep -Eqx "Architecture: (all linux-any|linux-any all)" "$dsc" || return 1
	grep -q " ttypair_$VER.orig.tar.gz\$" "$dsc" || { echo "no orig tarball"; return 1; }
	grep -Eq " ttypair_$VER-[^ ]*\.debian\.tar\.xz\$" "$dsc" || { echo "no debian tarball"; return 1; }
	tar -tzf "$D/n/ttypair_$VER.orig.tar.gz" | grep -qx "ttypair-$VER/dkms.conf" || return 1
	tar -tJf "$D"/n/ttypair_"$VER"-*.debian.tar.xz | grep -qx "debian/upstream/metadata" ||
		{ echo "no debian/upstream/metadata"; return 1; }
}
t_check deb_source_quilt_orig_from_make_dist t_source

# dpkg-buildpackage twice in a row in one tree: the second build works
# and makes the same packages, byte for byte
t_reproducible() {
	[ -f "$D/n/reproducible.log" ] || return 1
	cat "$D/n/reproducible.log"
	grep -q "^identical: ttypair-dkms_" "$D/n/reproducible.log" || return 1
	grep -q "^identical: ttypair-utils_" "$D/n/reproducible.log" || return 1
	! grep -Eq "^(different|second build)" "$D/n/reproducible.log"
}
t_check deb_builds_twice_reproducibly t_reproducible

t_utils_contents() {
	deb=$(ls "$D"/n/ttypair-utils_"$VER"-*_"$(dpkg --print-architecture)".deb) || return 1
	dpkg-deb -c "$deb" | awk '{ print $6 }'
	for f in usr/bin/ttypairctl usr/share/man/man4/ttypair.4.gz usr/share/man/man8/ttypairctl.8.gz; do
		dpkg-deb -c "$deb" | grep -q "\./$f\$" || { echo "/$f missing"; return 1; }
	done
	[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] || return 1
	dpkg-deb -f "$deb" Depends | grep -q "ttypair-dkms (= $VER-" ||
		{ echo "Depends: $(dpkg-deb -f "$deb" Depends)"; return 1; }
	dpkg-deb -x "$deb" "$D/xu"
	# (run in the build chroot: it needs that suite's glibc)
	v=$(cat "$D/n/utils-version.log")
	[ "$v" = "ttypairctl $VER" ] || { echo "ttypairctl --version: $v"; return 1; }
	# built with the distribution's hardening flags
	readelf -d "$D/xu/usr/bin/ttypairctl" | grep -q BIND_NOW || { echo "not linked with -z now"; return 1; }
	readelf -h "$D/xu/usr/bin/ttypairctl" | grep -q 'DYN ' || { echo "not PIE"; return 1; }
}
t_check deb_utils_contents t_utils_contents

# python3-ttypair: the package where every Debian Python 3 finds it, its
# pytest plugin registered, and the dependency on python3 that dh_python3
# computes
t_python_contents() {
	deb=$(ls "$D"/n/python3-ttypair_"$VER"-*_all.deb) || return 1
	dpkg-deb -c "$deb" | awk '{ print $6 }'
	for f in __init__.py pytest_plugin.py; do
		dpkg-deb -c "$deb" | grep -q "\./usr/lib/python3/dist-packages/ttypair/$f\$" ||
			{ echo "/usr/lib/python3/dist-packages/ttypair/$f missing"; return 1; }
	done
	! dpkg-deb -c "$deb" | grep -q "/tests/" || { echo "the package's tests are installed"; return 1; }
	dpkg-deb -x "$deb" "$D/xp"
	ep=$(cat "$D"/xp/usr/lib/python3/dist-packages/ttypair-"$VER".dist-info/entry_points.txt) ||
		{ echo "no ttypair-$VER.dist-info/entry_points.txt"; return 1; }
	echo "$ep"
	printf '%s\n' "$ep" | grep -qx 'ttypair.pytest_plugin = ttypair.pytest_plugin' ||
		{ echo "no pytest11 entry point"; return 1; }
	[ "$(dpkg-deb -f "$deb" Architecture)" = all ] || return 1
	[ "$(dpkg-deb -f "$deb" Section)" = python ] || return 1
	dpkg-deb -f "$deb" Depends | grep -q "python3" ||
		{ echo "Depends: $(dpkg-deb -f "$deb" Depends)"; return 1; }
	dpkg-deb -f "$deb" Recommends | grep -q "ttypair-dkms" || return 1
	# and Debian's python3 imports it from there, with its plugin
	cat "$D/n/python-import.log"
	grep -qx "/usr/lib/python3/dist-packages/ttypair/__init__.py" "$D/n/python-import.log" ||
		{ echo "python3 did not import the installed package"; return 1; }
	grep -qw "ttypair.pytest_plugin" "$D/n/python-import.log" ||
		{ echo "importlib.metadata lists no ttypair pytest11 plugin"; return 1; }
	grep -q "^identical: python3-ttypair_" "$D/n/reproducible.log" ||
		{ echo "python3-ttypair was not the same in the second build"; return 1; }
}
t_check deb_python_contents t_python_contents

t_lintian() {
	[ -f "$D/n/lintian.log" ] || return 1
	cat "$D/n/lintian.log"
	bad=$(grep -E '^(E|W): ' "$D/n/lintian.log")
	[ -z "$bad" ] || { echo "lintian: $(echo "$bad" | wc -l) errors or warnings"; return 1; }
	echo "lintian: no errors, no warnings ($(grep -c '^[IPX]: ' "$D/n/lintian.log") info/pedantic/experimental notes)"
}
t_check lintian_clean t_lintian

t_autopkgtest() {
	[ -f "$D/n/autopkgtest.log" ] || return 1
	cat "$D/n/autopkgtest.log"
	# dkms-autopkgtest is a superficial test: when it is the only one and
	# passes, autopkgtest exits 8 ("no non-superficial test"), not 0
	tail -n 1 "$D/n/autopkgtest.log" | grep -Eq "exit (0|8)$" || return 1
	grep -aEq "^dkms-autopkgtest +PASS" "$D/n/autopkgtest.log" || return 1
	! grep -aEq "^dkms-autopkgtest +(FAIL|SKIP)" "$D/n/autopkgtest.log" || return 1
	# "I: PASS <kernel>" (dkms 3.0), "I: PASS ttypair/<version> <kernel>" (3.2)
	grep -aE "^I: PASS ([^ ]+ )?[0-9][^ ]*\$" "$D/n/autopkgtest.log" || { echo "no kernel was built for"; return 1; }
}
t_check autopkgtest_pkg_dkms t_autopkgtest
