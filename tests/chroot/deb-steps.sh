#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The life of the ttypair-dkms and ttypair-utils packages on a Debian
# system, run inside a target chroot that has one kernel with its headers.
# Each step asserts dkms status, the files in /usr/src, /var/lib/dkms and
# /lib/modules, the vermagic of the installed modules, and ttypairctl and
# its manual pages.
#   deb-steps.sh utils-build DSC DIR  build ttypair-utils (Architecture: any)
#                                     from the source package for this suite,
#                                     as the archive does, into DIR
#   deb-steps.sh utils-build-next DSC DIR  the same for the next version
#   deb-steps.sh install DEB UTILS PY apt install the packages
#   deb-steps.sh newkernel            apt install another kernel (image+headers)
#   deb-steps.sh upgrade DEB UTILS PY apt install newer versions of the packages
#   deb-steps.sh purge                apt purge the packages
# The kernel installed by newkernel is written to /root/new-kernel.
set -u
ARCH=$(uname -m)
export DEBIAN_FRONTEND=noninteractive

. "$(dirname "$0")/../lib/tap.sh"

kernels() {
	for d in /lib/modules/*/build; do
		[ -d "$d" ] || continue
		d=${d%/build}
		echo "${d##*/}"
	done
}

deb_version() { dpkg-deb -f "$1" Version; }
# upstream VERSION: the upstream part of a Debian version (what precedes the
# last "-"): the version of the module, of dkms.conf and of
# /usr/src/ttypair-<version>
upstream() { echo "${1%-*}"; }

# installed_for VER KVER: ttypair of package version VER is installed for
# KVER, and only VER
installed_for() {
	up=$(upstream "$1")
	st=$(dkms status -m ttypair -k "$2" 2>&1)
	printf '%s\n' "$st" | grep -Fxq -e "ttypair/$up, $2, $ARCH: installed" \
		-e "ttypair, $up, $2, $ARCH: installed" ||
		{ echo "ttypair $up is not installed for $2: $st"; return 1; }
	# where dkms put it (its DEST_MODULE_LOCATION differs between
	# distributions), as depmod knows it
	f=$(modinfo -k "$2" -F filename ttypair 2>/dev/null)
	[ -f "$f" ] || { echo "no ttypair module for $2 in modules.dep"; return 1; }
	[ "$(modinfo -F version "$f")" = "$up" ] || { echo "$f is version $(modinfo -F version "$f")"; return 1; }
	vm=$(modinfo -F vermagic "$f")
	case "$vm" in
	"$2 "*) echo "$2: ttypair $up, vermagic $vm" ;;
	*) echo "vermagic '$vm' is not for $2"; return 1 ;;
	esac
}

only_version() {
	up=$(upstream "$1")
	[ -d "/usr/src/ttypair-$up" ] || { echo "no /usr/src/ttypair-$up"; return 1; }
	[ "$(ls -d /usr/src/ttypair-* | wc -l)" = 1 ] || { ls -d /usr/src/ttypair-*; return 1; }
	[ "$(ls /var/lib/dkms/ttypair | grep -v '^kernel-' | grep -c '[0-9]')" = 1 ] &&
		[ -d "/var/lib/dkms/ttypair/$up" ] || { ls /var/lib/dkms/ttypair; return 1; }
	[ "$(dpkg-query -W -f '${Version}' ttypair-dkms)" = "$1" ] || return 1
}

UTILS_FILES="/usr/bin/ttypairctl /usr/share/man/man4/ttypair.4.gz /usr/share/man/man8/ttypairctl.8.gz"

# utils_installed VER: ttypair-utils VER is installed, its files in place
utils_installed() {
	[ "$(dpkg-query -W -f '${Version}' ttypair-utils)" = "$1" ] || return 1
	for f in $UTILS_FILES; do
		[ -f "$f" ] || { echo "$f is not installed"; return 1; }
	done
	v=$(ttypairctl --version) || return 1
	[ "$v" = "ttypairctl $(upstream "$1")" ] || { echo "ttypairctl --version: $v"; return 1; }
	echo "ttypair-utils $1: $v, $(ls $UTILS_FILES | xargs)"
}

# python_installed VER: python3-ttypair VER is installed, and this suite's
# python3 imports it and lists its pytest plugin
python_installed() {
	[ "$(dpkg-query -W -f '${Version}' python3-ttypair)" = "$1" ] || return 1
	out=$(python3 -c 'import ttypair, importlib.metadata as m
print(ttypair.__file__, m.version("ttypair"))
print(*[e.value for e in m.distribution("ttypair").entry_points if e.group == "pytest11"])') ||
		{ echo "python3 cannot import ttypair"; return 1; }
	echo "$out"
	printf '%s\n' "$out" | grep -qx "/usr/lib/python3/dist-packages/ttypair/__init__.py $(upstream "$1")" ||
		return 1
	printf '%s\n' "$out" | grep -qx "ttypair.pytest_plugin" || { echo "no pytest plugin"; return 1; }
}

# The build a buildd of this suite makes: arch-only, with the suite's own
# compiler and libc (a binary built on Debian 12 needs glibc 2.34, which
# bullseye does not have)
t_utils_build() {
	apt-get update -q > /dev/null || return 1
	apt-get install -y -q --no-install-recommends build-essential debhelper > /tmp/bd.log 2>&1 ||
		{ tail -n 20 /tmp/bd.log; return 1; }
	rm -rf /tmp/ub && mkdir -p /tmp/ub "$2" || return 1
	(cd /tmp/ub && dpkg-source -x "$1" src > /dev/null && cd src &&
		dpkg-buildpackage -B -us -uc > /tmp/ub/build.log 2>&1) ||
		{ tail -n 30 /tmp/ub/build.log; return 1; }
	cp /tmp/ub/ttypair-utils_*.deb "$2"/ || return 1
	ls "$2"
	dpkg-deb -f "$2"/ttypair-utils_*.deb Depends
}

t_install() {
	apt-get update -q > /dev/null || return 1
	[ "$(kernels | wc -l)" = 1 ] || { echo "expected one kernel with headers: $(kernels)"; return 1; }
	apt-get install -y "$1" "$2" "$3" || return 1
	python_installed "$(deb_version "$3")" || return 1
	# where dh_installudev of the build's suite put them: /lib/udev/rules.d
	# up to Debian 12, /usr/lib/udev/rules.d from 13 on; udev reads both
	# (without a merged /usr too: bullseye's systemd 247 is built that way)
	[ -f /lib/udev/rules.d/60-ttypair.rules ] || [ -f /usr/lib/udev/rules.d/60-ttypair.rules ] ||
		{ echo "udev rules not installed"; return 1; }
	v=$(deb_version "$1")
	only_version "$v" || return 1
	installed_for "$v" "$(kernels)" || return 1
	utils_installed "$v"
}

# The other kernel: another ABI of the same flavour if the archive has one,
# else the same release in the PREEMPT_RT flavour.
other_kernel() {
	cur=$(kernels | head -n 1)
	flavour=${cur##*-}
	apt-cache search --names-only "^linux-image-[0-9].*-$flavour\$" |
		sed -n "s/^linux-image-\([^ ]*\) .*/\1/p" | grep -v "^$cur\$" |
		grep -v -e "-rt-$flavour\$" -e "-cloud-$flavour\$" | sort -V | tail -n 1 > /tmp/other
	[ -s /tmp/other ] || apt-cache search --names-only "^linux-image-[0-9].*-rt-$flavour\$" |
		sed -n "s/^linux-image-\([^ ]*\) .*/\1/p" | sort -V | tail -n 1 > /tmp/other
	cat /tmp/other
}

t_newkernel() {
	v=$(dpkg-query -W -f '${Version}' ttypair-dkms)
	k=$(other_kernel)
	[ -n "$k" ] || { echo "the archive has no other kernel"; return 1; }
	echo "installing kernel $k (image and headers); dkms's hooks must build ttypair for it"
	apt-get install -y "linux-image-$k" "linux-headers-$k" || return 1
	echo "$k" > /root/new-kernel
	[ -f "/boot/vmlinuz-$k" ] && [ -f "/boot/initrd.img-$k" ] || { echo "no kernel or initrd for $k"; return 1; }
	for kv in $(kernels); do
		installed_for "$v" "$kv" || return 1
	done
}

t_upgrade() {
	old=$(dpkg-query -W -f '${Version}' ttypair-dkms)
	new=$(deb_version "$1")
	dpkg --compare-versions "$new" gt "$old" || { echo "$new is not newer than $old"; return 1; }
	# As in a chroot on a machine whose kernel is older than the chroot's
	# (an image of a newer release built on an older one): dh_dkms's
	# snippet then builds for the newest kernel only, after the old
	# version's prerm removed the module from all; the package builds
	# for the others (debian/ttypair-dkms.postinst)
	setarch "$(uname -m)" --uname-2.6 apt-get install -y "$1" "$2" "$3" || return 1
	python_installed "$(deb_version "$3")" || return 1
	[ ! -e "/usr/src/ttypair-$(upstream "$old")" ] || { echo "/usr/src/ttypair-$(upstream "$old") is still there"; return 1; }
	[ ! -e "/var/lib/dkms/ttypair/$(upstream "$old")" ] || { echo "dkms still has $(upstream "$old")"; return 1; }
	only_version "$new" || return 1
	for kv in $(kernels); do
		installed_for "$new" "$kv" || return 1
	done
	[ "$(dkms status -m ttypair | wc -l)" = "$(kernels | wc -l)" ] || { dkms status -m ttypair; return 1; }
	utils_installed "$new"
}

t_purge() {
	# ttypair-utils depends on ttypair-dkms: purging that removes both;
	# python3-ttypair only recommends it
	apt-get purge -y ttypair-dkms python3-ttypair || return 1
	! python3 -c 'import ttypair' 2> /dev/null || { echo "ttypair can still be imported"; return 1; }
	[ ! -e /usr/lib/python3/dist-packages/ttypair ] || { echo "the Python package is left"; return 1; }
	! dpkg-query -W -f '${Status}' ttypair-utils 2>/dev/null | grep -q ' installed$' ||
		{ echo "ttypair-utils is still installed"; return 1; }
	for f in $UTILS_FILES; do
		[ ! -e "$f" ] || { echo "$f left"; return 1; }
	done
	[ -z "$(dkms status -m ttypair)" ] || { dkms status -m ttypair; return 1; }
	! ls -d /usr/src/ttypair-* 2>/dev/null || return 1
	[ ! -e /var/lib/dkms/ttypair ] || { ls -R /var/lib/dkms/ttypair | head; return 1; }
	[ -z "$(find /lib/modules -name 'ttypair.ko*')" ] || { find /lib/modules -name 'ttypair.ko*'; return 1; }
	[ ! -e /lib/udev/rules.d/60-ttypair.rules ] && [ ! -e /usr/lib/udev/rules.d/60-ttypair.rules ] ||
		{ echo "udev rules left"; return 1; }
}

case $1 in
utils-build) step deb_utils_built_for_suite t_utils_build "$2" "$3" ;;
utils-build-next) step deb_utils_next_built_for_suite t_utils_build "$2" "$3" ;;
install) step deb_install_builds_for_kernel t_install "$2" "$3" "$4" ;;
newkernel) step deb_new_kernel_gets_module t_newkernel ;;
upgrade) step deb_upgrade_replaces_version t_upgrade "$2" "$3" "$4" ;;
purge) step deb_purge_leaves_nothing t_purge ;;
*) echo "usage: $0 utils-build[-next] DSC DIR|install DEB UTILS PY|newkernel|upgrade DEB UTILS PY|purge" >&2; exit 2 ;;
esac
