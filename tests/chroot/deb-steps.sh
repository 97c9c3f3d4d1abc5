#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The life of the ttypair-dkms package on a Debian system, run inside a
# target chroot that has one kernel with its headers. Each step asserts
# dkms status, the files in /usr/src, /var/lib/dkms and /lib/modules, and
# the vermagic of the installed modules.
#   deb-steps.sh install DEB        apt install the package
#   deb-steps.sh newkernel          apt install another kernel (image+headers)
#   deb-steps.sh upgrade DEB        apt install a newer version of the package
#   deb-steps.sh purge              apt purge the package
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

# installed_for VER KVER: ttypair VER is installed for KVER, and only VER
installed_for() {
	st=$(dkms status -m ttypair -k "$2" 2>&1)
	printf '%s\n' "$st" | grep -Fxq -e "ttypair/$1, $2, $ARCH: installed" \
		-e "ttypair, $1, $2, $ARCH: installed" ||
		{ echo "ttypair $1 is not installed for $2: $st"; return 1; }
	f=$(ls "/lib/modules/$2/updates/dkms/ttypair.ko"* 2>/dev/null | head -n 1)
	[ -n "$f" ] || { echo "no module in /lib/modules/$2/updates/dkms"; return 1; }
	[ "$(modinfo -F version "$f")" = "$1" ] || { echo "$f is version $(modinfo -F version "$f")"; return 1; }
	vm=$(modinfo -F vermagic "$f")
	case "$vm" in
	"$2 "*) echo "$2: ttypair $1, vermagic $vm" ;;
	*) echo "vermagic '$vm' is not for $2"; return 1 ;;
	esac
	grep -q "updates/dkms/ttypair.ko" "/lib/modules/$2/modules.dep" || { echo "depmod did not see it"; return 1; }
}

only_version() {
	[ -d "/usr/src/ttypair-$1" ] || { echo "no /usr/src/ttypair-$1"; return 1; }
	[ "$(ls -d /usr/src/ttypair-* | wc -l)" = 1 ] || { ls -d /usr/src/ttypair-*; return 1; }
	[ "$(ls /var/lib/dkms/ttypair | grep -v '^kernel-' | grep -c '[0-9]')" = 1 ] &&
		[ -d "/var/lib/dkms/ttypair/$1" ] || { ls /var/lib/dkms/ttypair; return 1; }
	[ "$(dpkg-query -W -f '${Version}' ttypair-dkms)" = "$1" ] || return 1
}

t_install() {
	apt-get update -q > /dev/null || return 1
	[ "$(kernels | wc -l)" = 1 ] || { echo "expected one kernel with headers: $(kernels)"; return 1; }
	apt-get install -y "$1" || return 1
	[ -f /lib/udev/rules.d/60-ttypair.rules ] || { echo "udev rules not installed"; return 1; }
	v=$(deb_version "$1")
	only_version "$v" || return 1
	installed_for "$v" "$(kernels)"
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
	apt-get install -y "$1" || return 1
	[ ! -e "/usr/src/ttypair-$old" ] || { echo "/usr/src/ttypair-$old is still there"; return 1; }
	[ ! -e "/var/lib/dkms/ttypair/$old" ] || { echo "dkms still has $old"; return 1; }
	only_version "$new" || return 1
	for kv in $(kernels); do
		installed_for "$new" "$kv" || return 1
	done
	[ "$(dkms status -m ttypair | wc -l)" = "$(kernels | wc -l)" ] || { dkms status -m ttypair; return 1; }
}

t_purge() {
	apt-get purge -y ttypair-dkms || return 1
	[ -z "$(dkms status -m ttypair)" ] || { dkms status -m ttypair; return 1; }
	! ls -d /usr/src/ttypair-* 2>/dev/null || return 1
	[ ! -e /var/lib/dkms/ttypair ] || { ls -R /var/lib/dkms/ttypair | head; return 1; }
	! ls /lib/modules/*/updates/dkms/ttypair.ko* 2>/dev/null || return 1
	[ ! -e /lib/udev/rules.d/60-ttypair.rules ] || { echo "udev rules left"; return 1; }
}

case $1 in
install) step deb_install_builds_for_kernel t_install "$2" ;;
newkernel) step deb_new_kernel_gets_module t_newkernel ;;
upgrade) step deb_upgrade_replaces_version t_upgrade "$2" ;;
purge) step deb_purge_leaves_nothing t_purge ;;
*) echo "usage: $0 install DEB|newkernel|upgrade DEB|purge" >&2; exit 2 ;;
esac
