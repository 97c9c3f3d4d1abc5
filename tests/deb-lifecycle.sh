#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian packages' life in one suite, as a user lives it:
#   tests/deb-lifecycle.sh NAME SUITE DEB_N DEB_N1
# DEB_N and DEB_N1 are the ttypair-dkms packages of two versions; the source
# packages (.dsc) next to them give ttypair-utils, built in the suite first
# as the archive would (it is Architecture: any); python3-ttypair (all) is
# taken as built, from beside them. In a chroot of SUITE with
# one kernel and its headers: apt install the packages (the module is built
# for that kernel during the install), apt install another kernel (dkms's
# hooks build for it), boot that kernel in QEMU and use the module there,
# upgrade the packages to the next version, purge them.
set -u
NAME=$1 SUITE=$2 DEB_N=$3 DEB_N1=$4
TTYPAIR_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
. "$TTYPAIR_SRC/tests/lib/chroot.sh"
. "$TTYPAIR_SRC/tests/lib/qemu.sh"
TTYPAIR_STAGE=$NAME
W=$TTYPAIR_OUT/$NAME
ROOT=$W/root

collect() { collect_tap "$NAME" "$1"; }

# run_step LOGNAME COMMAND ARGS...: a step of tests/chroot/deb-steps.sh,
# whose result must be there (the step of COMMAND's case arm there)
run_step() {
	_l=$1
	shift
	in_chroot "$ROOT" sh /root/t/chroot/deb-steps.sh "$@" > "$W/$_l.log" 2>&1
	cat "$W/$_l.log"
	collect "$W/$_l.log"
	expect_results "$NAME" "$(step_names "$TTYPAIR_SRC/tests/chroot/deb-steps.sh" "$1")"
	grep -q "^ok - " "$W/$_l.log"
}

mkdir -p "$W"
tar=$(chroot_tarball "$SUITE" "linux-image-amd64 linux-headers-amd64" "") ||
	{ t_fail "$NAME/chroot" "mmdebstrap of $SUITE failed"; exit 0; }
chroot_extract "$tar" "$ROOT"
# Initramfs images made in the chroot must boot the guest, not the build
# machine: dracut (sid's default) would otherwise pick the drivers of the
# machine it runs on.
mkdir -p "$ROOT/etc/dracut.conf.d"
printf 'hostonly="no"\nadd_drivers+=" virtio_blk virtio_pci ext4 "\n' \
	> "$ROOT/etc/dracut.conf.d/90-ttypair-tests.conf"
mkdir -p "$ROOT/root/t/chroot" "$ROOT/root/t/lib"
cp "$TTYPAIR_SRC/tests/chroot/deb-steps.sh" "$ROOT/root/t/chroot/"
cp "$TTYPAIR_SRC/tests/lib/tap.sh" "$ROOT/root/t/lib/"
mkdir -p "$ROOT/root/debs/n" "$ROOT/root/debs/n1"
cp "$DEB_N" "$(dirname "$DEB_N")"/ttypair_*.dsc "$(dirname "$DEB_N")"/ttypair_*.tar.* \
	"$(dirname "$DEB_N")"/python3-ttypair_*_all.deb "$ROOT/root/debs/n/"
cp "$DEB_N1" "$(dirname "$DEB_N1")"/ttypair_*.dsc "$(dirname "$DEB_N1")"/ttypair_*.tar.* \
	"$(dirname "$DEB_N1")"/python3-ttypair_*_all.deb "$ROOT/root/debs/n1/"
N=/root/debs/n/$(basename "$DEB_N")
N1=/root/debs/n1/$(basename "$DEB_N1")
log "Debian $SUITE, dkms $(in_chroot "$ROOT" dpkg-query -W -f '${Version}' dkms)," \
	"kernel $(chroot_kernels "$ROOT" | xargs)"

run_step deb-utils-n utils-build "$(ls "$ROOT"/root/debs/n/ttypair_*.dsc | sed "s|^$ROOT||")" \
	/root/debs/n/utils || exit 0
run_step deb-utils-n1 utils-build-next "$(ls "$ROOT"/root/debs/n1/ttypair_*.dsc | sed "s|^$ROOT||")" \
	/root/debs/n1/utils || exit 0
U=$(ls "$ROOT"/root/debs/n/utils/ttypair-utils_*.deb | sed "s|^$ROOT||")
U1=$(ls "$ROOT"/root/debs/n1/utils/ttypair-utils_*.deb | sed "s|^$ROOT||")
P=$(ls "$ROOT"/root/debs/n/python3-ttypair_*_all.deb | sed "s|^$ROOT||")
P1=$(ls "$ROOT"/root/debs/n1/python3-ttypair_*_all.deb | sed "s|^$ROOT||")
run_step deb-install install "$N" "$U" "$P" || exit 0
if run_step deb-newkernel newkernel; then
	K2=$(cat "$ROOT/root/new-kernel")
	# The new kernel boots and loads the module dkms built for it
	if guest_prepare "$ROOT" "$(dpkg-deb -f "$DEB_N" Version | sed 's/-[^-]*$//')" \
		"export TTYPAIR_GUEST_MODE=smoke TTYPAIR_TEST_BYTES=1048576" "$W/gcc.log"; then
		guest_run "$NAME" "$W" "$ROOT" "$K2"
		# the steps of the guest's smoke mode (tests/guest/guest-tests.sh)
		expect_results "$NAME" "$(sed -n '/GUEST_MODE:-}" = smoke/,/^fi$/s/^[[:space:]]*step \([a-z0-9_]*\) .*/\1/p' \
			"$TTYPAIR_SRC/tests/guest/guest-tests.sh")"
	else
		cat "$W/gcc.log"
		t_fail "$NAME/guest_tests_build" "$(tail -n 1 "$W/gcc.log")"
	fi
fi
run_step deb-upgrade upgrade "$N1" "$U1" "$P1"
run_step deb-purge purge

[ -n "${TTYPAIR_KEEP:-}" ] || rm -rf "$ROOT"
exit 0
