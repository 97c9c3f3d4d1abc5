#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make rpm` three times for the tests: this version (N) into tests/out/rpm/n,
# the same with Release 2 into tests/out/rpm/r2, and the next patch version
# (N+1) into tests/out/rpm/n1; rpmlint, the package's contents, then the
# scriptlets (tests/rpm-scriptlets.sh).
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
TTYPAIR_STAGE=rpm
VER=$(ttypair_version)
NEXT=${VER%.*}.$(( ${VER##*.} + 1 ))
D=$TTYPAIR_OUT/rpm

t_version_match() {
	v=$(sed -n 's/^Version: *//p' "$TTYPAIR_SRC/rpm/ttypair.spec")
	[ "$v" = "$VER" ] || { echo "rpm/ttypair.spec says $v, dkms.conf says $VER"; return 1; }
	echo "rpm/ttypair.spec and dkms.conf: $VER"
}
t_check rpm_version_is_dkms_version t_version_match

t_dist() {
	t=$(sh "$TTYPAIR_SRC/scripts/make-dist.sh" "$D/dist") || return 1
	[ "$(basename "$t")" = "ttypair-$VER.tar.gz" ] || { echo "tarball $t"; return 1; }
	tar -tzf "$t" | grep -qx "ttypair-$VER/dkms.conf" || return 1
	tar -tzf "$t" | grep -qx "ttypair-$VER/rpm/ttypair.spec" || return 1
	echo "$t: $(tar -tzf "$t" | wc -l) entries"
}
t_check make_dist t_dist

if sh "$TTYPAIR_SRC/scripts/make-rpm.sh" "$D/n" > "$D.n.log" 2>&1; then
	t_pass rpm_build
else
	t_fail rpm_build "$(tail -n 1 "$D.n.log")"
fi
cat "$D.n.log"
if sh "$TTYPAIR_SRC/scripts/make-rpm.sh" "$D/n1" "$NEXT" > "$D.n1.log" 2>&1; then
	t_pass rpm_build_next_version
else
	t_fail rpm_build_next_version "$(tail -n 1 "$D.n1.log")"
fi
cat "$D.n1.log"
if sh "$TTYPAIR_SRC/scripts/make-rpm.sh" "$D/r2" "$VER" 2 > "$D.r2.log" 2>&1; then
	t_pass rpm_build_release_bump
else
	cat "$D.r2.log"
	t_fail rpm_build_release_bump "$(tail -n 1 "$D.r2.log")"
fi

t_rpmlint() {
	[ -f "$D/n/rpmlint.log" ] || return 1
	grep -E "packages and .* checked" "$D/n/rpmlint.log" | tail -n 1
	grep -Eq " 0 errors, 0 warnings" "$D/n/rpmlint.log" || return 1
	echo "filters, each with its reason, in rpm/rpmlintrc:"
	grep -B1 '^addFilter' "$TTYPAIR_SRC/rpm/rpmlintrc"
}
t_check rpmlint_clean t_rpmlint

t_contents() {
	rpm=$D/n/dkms-ttypair-$VER-1.noarch.rpm
	[ -f "$rpm" ] || return 1
	rpm -qlp "$rpm"
	rpm -qlp "$rpm" | grep -qx "/usr/src/ttypair-$VER/dkms.conf" || return 1
	rpm -qlp "$rpm" | grep -qx "/usr/src/ttypair-$VER/src/main.c" || return 1
	rpm -qlp "$rpm" | grep -qx "/usr/lib/udev/rules.d/60-ttypair.rules" ||
		{ echo "udev rules missing"; return 1; }
	[ "$(rpm -qp --qf '%{ARCH}' "$rpm")" = noarch ] || return 1
	rpm -qpR "$rpm" | grep -qx "dkms" || { echo "no Requires: dkms"; return 1; }
	mkdir -p "$D/x"
	(cd "$D/x" && rpm2cpio "$rpm" | cpio -idm --quiet) || return 1
	grep -qx "PACKAGE_VERSION=\"$VER\"" "$D/x/usr/src/ttypair-$VER/dkms.conf" ||
		{ echo "dkms.conf in the RPM does not say $VER"; return 1; }
	rpm -qp --scripts "$rpm"
	rpm -qp --scripts "$rpm" | grep -q "dkms remove -m ttypair -v $VER --all" || return 1
	rpm -qp --scripts "$rpm" | grep -q "^posttrans scriptlet" || { echo "no %posttrans"; return 1; }
	rpm -qp --scripts "$rpm" | grep -q "dkms install -m ttypair -v $VER -k \"\$kernel\" --force" || return 1
	# what the scriptlets run, ordered before them; and the capability a
	# kmod package could provide instead
	rpm -qpR "$rpm" | grep -qx "dkms" || return 1
	rpm -qp --requires "$rpm" | grep -q "^dkms$" || return 1
	rpm -qp --qf '[%{REQUIREFLAGS:deptype} %{REQUIRENAME}\n]' "$rpm" | grep -q "preun dkms" ||
		{ echo "no Requires(preun): dkms"; return 1; }
	rpm -qp --qf '[%{REQUIREFLAGS:deptype} %{REQUIRENAME}\n]' "$rpm" | grep -q "posttrans dkms" ||
		{ echo "no Requires(posttrans): dkms"; return 1; }
	rpm -qp --provides "$rpm" | grep -qx "ttypair-kmod = $VER" || { echo "does not provide ttypair-kmod = $VER"; return 1; }
	[ -f "$D/n/ttypair-$VER-1.src.rpm" ] || { echo "no SRPM ttypair-$VER-1.src.rpm"; return 1; }
}
t_check rpm_contents t_contents

t_utils_contents() {
	rpm=$D/n/ttypair-utils-$VER-1.$(uname -m).rpm
	[ -f "$rpm" ] || { echo "no $rpm"; return 1; }
	rpm -qlp "$rpm"
	for f in /usr/bin/ttypairctl /usr/share/man/man4/ttypair.4.gz /usr/share/man/man8/ttypairctl.8.gz; do
		rpm -qlp "$rpm" | grep -qx "$f" || { echo "$f missing"; return 1; }
	done
	rpm -qpR "$rpm" | grep -qx "ttypair-kmod = $VER" ||
		{ echo "does not require ttypair-kmod = $VER"; return 1; }
	mkdir -p "$D/xu"
	(cd "$D/xu" && rpm2cpio "$rpm" | cpio -idm --quiet) || return 1
	v=$("$D/xu/usr/bin/ttypairctl" --version) || return 1
	[ "$v" = "ttypairctl $VER" ] || { echo "ttypairctl --version: $v"; return 1; }
	zcat "$D/xu/usr/share/man/man8/ttypairctl.8.gz" | grep -q '^\.TH TTYPAIRCTL 8' || return 1
}
t_check rpm_utils_contents t_utils_contents

# python3-ttypair: the package in the site directory, with its pytest
# plugin, requiring the Python it was built for, no build path in it
t_python_contents() {
	rpm=$D/n/python3-ttypair-$VER-1.noarch.rpm
	[ -f "$rpm" ] || { echo "no $rpm"; return 1; }
	rpm -qlp "$rpm"
	site=$(rpm -qlp "$rpm" | sed -n 's|/ttypair/__init__\.py$||p')
	[ -n "$site" ] || { echo "no ttypair/__init__.py"; return 1; }
	rpm -qlp "$rpm" | grep -qx "$site/ttypair/pytest_plugin.py" || return 1
	rpm -qlp "$rpm" | grep -qx "$site/ttypair-$VER.dist-info/entry_points.txt" || return 1
	! rpm -qlp "$rpm" | grep -q "direct_url.json" || { echo "direct_url.json names the build directory"; return 1; }
	rpm -qpR "$rpm" | grep -q "^python(abi) = 3\." || { echo "no python(abi) requirement"; return 1; }
	rpm -qp --recommends "$rpm" | grep -qx "ttypair-kmod" || return 1
	[ "$(rpm -qp --qf '%{ARCH}' "$rpm")" = noarch ] || return 1
	mkdir -p "$D/xp"
	(cd "$D/xp" && rpm2cpio "$rpm" | cpio -idm --quiet) || return 1
	grep -qx "ttypair.pytest_plugin = ttypair.pytest_plugin" "$D/xp$site/ttypair-$VER.dist-info/entry_points.txt" ||
		{ echo "no pytest11 entry point"; return 1; }
	[ "$(cat "$D/xp$site/ttypair-$VER.dist-info/INSTALLER")" = rpm ] || return 1
	cmp "$D/xp$site/ttypair/__init__.py" "$TTYPAIR_SRC/python/ttypair/__init__.py" || return 1
	# what a Python of that version finds there: the package and its plugin
	PYTHONPATH=$D/xp$site /usr/bin/python3 -c 'import ttypair, importlib.metadata as m
print(ttypair.__file__)
print(*[e.value for e in m.entry_points().select(group="pytest11") if e.name.startswith("ttypair")])' |
		tee "$D/python-import.log"
	grep -qx "ttypair.pytest_plugin" "$D/python-import.log" || return 1
}
t_check rpm_python_contents t_python_contents

n=$D/n/dkms-ttypair-$VER-1.noarch.rpm
n1=$D/n1/dkms-ttypair-$NEXT-1.noarch.rpm
u=$D/n/ttypair-utils-$VER-1.$(uname -m).rpm
u1=$D/n1/ttypair-utils-$NEXT-1.$(uname -m).rpm
r2=$D/r2/dkms-ttypair-$VER-2.noarch.rpm
if [ -f "$n" ] && [ -f "$n1" ] && [ -f "$u" ] && [ -f "$u1" ] && [ -f "$r2" ]; then
	sh "$TTYPAIR_SRC/tests/rpm-scriptlets.sh" "$n" "$n1" "$u" "$u1" "$r2"
else
	t_fail rpm_scriptlets "the RPMs were not built"
fi
