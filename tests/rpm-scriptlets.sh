#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The RPM's scriptlets, exercised without an RPM-based distribution: this
# machine's rpm installs the package with --root into a Debian chroot that
# has dkms and a kernel's headers (--nodeps, since the Fedora package names
# of the dependencies mean nothing to Debian's rpm database).
# ttypair-utils is installed, upgraded and erased with it.
# Then a reinstall, a Release bump and a downgrade, each of which must leave
# the new package's module built and installed.
#   tests/rpm-scriptlets.sh RPM_N RPM_N1 UTILS_N UTILS_N1 RPM_N_RELEASE2
set -u
RPM_N=$1 RPM_N1=$2 UTILS_N=$3 UTILS_N1=$4 RPM_R2=$5
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
TTYPAIR_STAGE=rpm
W=$TTYPAIR_OUT/rpm-scriptlets
ROOT=$W/root
ARCH=$(uname -m)

mkdir -p "$W"
tar=$(chroot_tarball bookworm "linux-image-amd64 linux-headers-amd64" "") ||
	{ t_fail rpm_scriptlets "no chroot"; exit 0; }
chroot_extract "$tar" "$ROOT"
KVER=$(chroot_kernels "$ROOT" | tail -n 1)
N=$(rpm -qp --qf '%{VERSION}' "$RPM_N")
N1=$(rpm -qp --qf '%{VERSION}' "$RPM_N1")
rpmroot() { with_mounts "$ROOT" rpm --root "$ROOT" "$@"; }
inroot() { in_chroot "$ROOT" "$@"; }

# installed_only VER: exactly VER is registered and installed for KVER
installed_only() {
	st=$(inroot dkms status -m ttypair)
	echo "dkms status: $st"
	[ "$st" = "ttypair/$1, $KVER, $ARCH: installed" ] ||
		[ "$st" = "ttypair, $1, $KVER, $ARCH: installed" ] || return 1
	f=$(inroot modinfo -k "$KVER" -F filename ttypair) && [ -f "$ROOT$f" ] ||
		{ echo "modinfo -k $KVER finds no ttypair"; return 1; }
	echo "module: $f"
	[ "$(ls -d "$ROOT"/usr/src/ttypair-* | wc -l)" = 1 ] && [ -d "$ROOT/usr/src/ttypair-$1" ] || return 1
	[ "$(ls "$ROOT/var/lib/dkms/ttypair" | grep -c '^[0-9]')" = 1 ] || return 1
}

# utils_installed VER: ttypairctl of VER runs, its manual pages are there
utils_installed() {
	v=$(inroot ttypairctl --version) || return 1
	[ "$v" = "ttypairctl $1" ] || { echo "ttypairctl --version: $v"; return 1; }
	for f in /usr/share/man/man4/ttypair.4.gz /usr/share/man/man8/ttypairctl.8.gz; do
		[ -f "$ROOT$f" ] || { echo "$f not installed"; return 1; }
	done
	[ "$(rpmroot -q ttypair-utils)" = "ttypair-utils-$1-1.$(uname -m)" ] || return 1
}

t_install() {
	rpmroot --initdb || return 1
	rpmroot -ivh --nodeps "$RPM_N" "$UTILS_N" || return 1
	[ -f "$ROOT/usr/lib/udev/rules.d/60-ttypair.rules" ] || { echo "udev rules not installed"; return 1; }
	installed_only "$N" && utils_installed "$N"
}
t_check rpm_post_installs_for_kernel t_install

# module_time: when the installed module was built (its file's time)
module_time() { stat -c %Y "$ROOT$(inroot modinfo -k "$KVER" -F filename ttypair)"; }

t_reinstall() {
	before=$(module_time)
	sleep 1
	rpmroot -Uvh --replacepkgs --nodeps "$RPM_N" || return 1
	installed_only "$N" || return 1
	[ "$(module_time)" -gt "$before" ] || { echo "the module was not built again"; return 1; }
}
t_check rpm_reinstall_keeps_module t_reinstall

t_release_bump() {
	before=$(module_time)
	sleep 1
	rpmroot -Uvh --nodeps "$RPM_R2" || return 1
	[ "$(rpmroot -q dkms-ttypair)" = "$(rpm -qp "$RPM_R2")" ] || return 1
	installed_only "$N" || return 1
	[ "$(module_time)" -gt "$before" ] || { echo "the module was not built again"; return 1; }
}
t_check rpm_release_bump_rebuilds_module t_release_bump

t_upgrade() {
	rpmroot -Uvh --nodeps "$RPM_N1" "$UTILS_N1" || return 1
	[ "$(rpmroot -q dkms-ttypair)" = "$(rpm -qp "$RPM_N1")" ] || return 1
	installed_only "$N1" && utils_installed "$N1"
}
t_check rpm_upgrade_keeps_one_version t_upgrade

t_downgrade() {
	rpmroot -Uvh --oldpackage --nodeps "$RPM_N" "$UTILS_N" || return 1
	[ "$(rpmroot -q dkms-ttypair)" = "$(rpm -qp "$RPM_N")" ] || return 1
	installed_only "$N" && utils_installed "$N"
}
t_check rpm_downgrade_installs_older_module t_downgrade

t_erase() {
	# the dependency order: ttypair-utils requires dkms-ttypair
	! rpmroot -e dkms-ttypair 2> /dev/null || { echo "erased dkms-ttypair under ttypair-utils"; return 1; }
	rpmroot -e ttypair-utils dkms-ttypair || return 1
	st=$(inroot dkms status -m ttypair)
	[ -z "$st" ] || { echo "dkms status: $st"; return 1; }
	! ls -d "$ROOT"/usr/src/ttypair-* 2>/dev/null || return 1
	[ ! -e "$ROOT/var/lib/dkms/ttypair" ] || return 1
	[ -z "$(find "$ROOT/lib/modules" -name 'ttypair.ko*')" ] || return 1
	[ ! -e "$ROOT/usr/lib/udev/rules.d/60-ttypair.rules" ] || { echo "udev rules left"; return 1; }
	for f in /usr/bin/ttypairctl /usr/share/man/man4/ttypair.4.gz /usr/share/man/man8/ttypairctl.8.gz; do
		[ ! -e "$ROOT$f" ] || { echo "$f left"; return 1; }
	done
	[ -z "$(rpmroot -qa)" ] || { rpmroot -qa; return 1; }
}
t_check rpm_erase_leaves_nothing t_erase

[ -n "${TTYPAIR_KEEP:-}" ] || rm -rf "$ROOT"
exit 0
