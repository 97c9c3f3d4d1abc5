#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The DKMS lifecycle, run inside a target chroot with the sources in
# /usr/src/ttypair-<version>. Asserts dkms status and the files in
# /lib/modules and /var/lib/dkms after every step.
#
#   dkms-lifecycle.sh up KVER     dkms add, build, install
#   dkms-lifecycle.sh down KVER   dkms uninstall, remove
#
# Prints "ok - NAME" or "not ok - NAME: reason" for every step.
set -u
phase=$1
KVER=$2
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' /usr/src/ttypair-*/dkms.conf | head -n 1)
ARCH=$(uname -m)
TREE=/var/lib/dkms/ttypair
DEST=/lib/modules/$KVER/updates/dkms

. "$(dirname "$0")/../lib/tap.sh"

# status_is STATE: dkms status reports ttypair VER for KVER in STATE
# (2.8.4 prints "ttypair, VER, ..." and 3.x "ttypair/VER, ...").
status_is() {
	s=$(dkms status -m ttypair 2>&1)
	if [ "$1" = none ]; then
		echo "$s" | grep -q "ttypair" && { echo "dkms status: $s"; return 1; }
		return 0
	fi
	printf '%s\n' "$s" | grep -Fxq -e "ttypair/$VER, $KVER, $ARCH: $1" \
		-e "ttypair, $VER, $KVER, $ARCH: $1" ||
		{ echo "expected '$1', dkms status says: $s"; return 1; }
}

module_file() { ls "$1"/ttypair.ko* 2>/dev/null | head -n 1; }

t_add() {
	dkms add -m ttypair -v "$VER" || return 1
	[ -L "$TREE/$VER/source" ] || [ -d "$TREE/$VER/source" ] ||
		{ echo "no $TREE/$VER/source"; return 1; }
	[ -f "$TREE/$VER/source/dkms.conf" ] || { echo "source/dkms.conf missing"; return 1; }
	s=$(dkms status -m ttypair)
	echo "$s" | grep -Eq "^ttypair(/|, )$VER: added$" ||
		{ echo "expected 'added', dkms status says: $s"; return 1; }
}

t_build() {
	# W=1 and warnings as errors, through the environment that dkms passes
	# on to the kernel's make
	KBUILD_EXTRA_WARN=1 KCFLAGS=-Werror dkms build -m ttypair -v "$VER" -k "$KVER"
	rc=$?
	# dkms 2.8 keeps build/make.log; 3.x moves it to <kver>/<arch>/log/
	log=$TREE/$VER/$KVER/$ARCH/log/make.log
	[ -f "$log" ] || log=$TREE/$VER/build/make.log
	[ -f "$log" ] || { echo "no make.log of the build"; return 1; }
	cp "$log" /root/dkms-make.log
	[ $rc = 0 ] || { tail -n 30 "$log"; return 1; }
	f=$(module_file "$TREE/$VER/$KVER/$ARCH/module")
	[ -n "$f" ] || { echo "no module in $TREE/$VER/$KVER/$ARCH/module"; return 1; }
	status_is built || return 1
	if grep -E "warning:|error:" "$log"; then
		echo "the dkms build printed warnings"
		return 1
	fi
	grep -q "PROBE" "$log" || { echo "the feature probes did not run"; return 1; }
	grep -q "^ttypair: feature probes for $KVER (W=1 KCFLAGS=-Werror)" "$log" ||
		{ echo "the build did not run with W=1 and -Werror"; return 1; }
}

t_install() {
	dkms install -m ttypair -v "$VER" -k "$KVER" || return 1
	f=$(module_file "$DEST")
	[ -n "$f" ] || { echo "no module in $DEST"; return 1; }
	status_is installed || return 1
	grep -q "updates/dkms/ttypair.ko" "/lib/modules/$KVER/modules.dep" ||
		{ echo "depmod did not record the module"; return 1; }
	[ "$(modinfo -F version "$f")" = "$VER" ] ||
		{ echo "modinfo version $(modinfo -F version "$f"), expected $VER"; return 1; }
}

t_vermagic() {
	f=$(module_file "$DEST")
	vm=$(modinfo -F vermagic "$f")
	echo "vermagic: $vm"
	case "$vm" in
	"$KVER "*) ;;
	*) echo "vermagic does not start with '$KVER '"; return 1 ;;
	esac
	# the kernel's own modules carry the same vermagic
	ref=$(find "/lib/modules/$KVER/kernel/drivers/tty" -name 'n_*.ko*' | head -n 1)
	[ -z "$ref" ] || [ "$(modinfo -F vermagic "$ref")" = "$vm" ] ||
		{ echo "differs from $ref: $(modinfo -F vermagic "$ref")"; return 1; }
}

t_modversions() {
	f=$(module_file "$DEST")
	if grep -q "^CONFIG_MODVERSIONS=y" "/boot/config-$KVER"; then
		n=$(modprobe --dump-modversions "$f" | wc -l)
		echo "CONFIG_MODVERSIONS=y: $n symbol CRCs"
		modprobe --dump-modversions "$f" | grep -q "tty_port_open" ||
			{ echo "no CRC for tty_port_open"; return 1; }
		[ "$n" -gt 10 ] || { echo "only $n CRCs"; return 1; }
	else
		echo "CONFIG_MODVERSIONS is off in $KVER: no CRCs expected"
		[ "$(modprobe --dump-modversions "$f" 2>/dev/null | wc -l)" = 0 ] ||
			{ echo "CRCs found without CONFIG_MODVERSIONS"; return 1; }
	fi
}

t_uninstall() {
	dkms uninstall -m ttypair -v "$VER" -k "$KVER" || return 1
	[ -z "$(module_file "$DEST")" ] || { echo "module still in $DEST"; return 1; }
	! grep -q "updates/dkms/ttypair.ko" "/lib/modules/$KVER/modules.dep" ||
		{ echo "modules.dep still lists the module"; return 1; }
	status_is built || return 1
	[ -n "$(module_file "$TREE/$VER/$KVER/$ARCH/module")" ] ||
		{ echo "the built module left /var/lib/dkms too early"; return 1; }
}

t_remove() {
	# dkms 2.8 wants -k or --all; 3.x accepts both
	dkms remove -m ttypair -v "$VER" --all || return 1
	[ ! -e "$TREE/$VER" ] || { echo "$TREE/$VER still exists"; return 1; }
	status_is none || return 1
	[ -d "/usr/src/ttypair-$VER" ] || { echo "dkms remove deleted the sources"; return 1; }
}

case $phase in
up)
	step dkms_add t_add
	step dkms_build t_build
	step dkms_install t_install
	step module_vermagic t_vermagic
	step module_modversions t_modversions
	;;
down)
	step dkms_uninstall t_uninstall
	step dkms_remove t_remove
	;;
*)
	echo "usage: $0 up|down KVER" >&2
	exit 2
	;;
esac
