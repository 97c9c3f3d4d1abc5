# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shell functions of `make install` and `make uninstall` on the running
# system (scripts/dkms-install.sh, scripts/dkms-uninstall.sh); sourced.

NAME=ttypair

say() { echo "ttypair: $*"; }
die() { echo "ttypair: $*" >&2; exit 1; }

# pkgmgr: the package manager of this machine (apt-get, dnf, zypper or none)
pkgmgr() {
	for _p in apt-get dnf zypper; do
		command -v $_p > /dev/null 2>&1 && { echo $_p; return; }
	done
	echo none
}

# registered_versions: the versions of ttypair DKMS knows, from `dkms status`
# ("name/version, ..." from dkms 2.8.6 on, "name, version, ..." before)
registered_versions() {
	dkms status -m $NAME 2>/dev/null | sed -n "s/^$NAME[/,] *\([^,:]*\)[,:].*/\1/p" | sort -u
}

# kernel_flavour KVER: the flavour part of a kernel release: 6.1.0-50-amd64,
# 6.12.57+deb13-amd64 -> amd64; 6.1.0-50-rt-amd64 -> rt-amd64;
# 6.8.0-45-generic -> generic; 6.6.51+rpt-rpi-v8 -> rpi-v8;
# 6.4.0-150600.23.25-default -> default
kernel_flavour() {
	echo "$1" | sed 's/^[0-9][^-]*-//; s/^[0-9][0-9.]*-//'
}

# headers_pkg KVER: the package holding the build directory of KVER
headers_pkg() {
	case $(pkgmgr) in
	apt-get) echo "linux-headers-$1" ;;
	dnf) echo "kernel-devel-$1" ;;
	zypper) echo "kernel-$(kernel_flavour "$1")-devel" ;;
	*) echo "the headers (build directory) of kernel $1" ;;
	esac
}

# headers_meta KVER: the package that brings the headers of every later
# kernel of KVER's flavour, so that dkms builds ttypair for them too
# (linux-headers-amd64, linux-headers-generic, kernel-devel, ...)
headers_meta() {
	case $(pkgmgr) in
	apt-get) echo "linux-headers-$(kernel_flavour "$1")" ;;
	dnf) echo "kernel-devel" ;;
	zypper) echo "kernel-$(kernel_flavour "$1")-devel" ;;
	esac
}

# refresh: the package lists, once, before the first package is installed
refreshed=
refresh() {
	[ -z "$refreshed" ] || return 0
	refreshed=1
	say "updating the package lists ($(pkgmgr))"
	# (apt-get update exits 0 when it cannot reach an archive: it says
	# Err: and "W: Failed to fetch")
	case $(pkgmgr) in
	apt-get) apt-get update -q > /tmp/ttypair-refresh.log 2>&1 &&
		! grep -Eq '^(Err:|W: Failed to fetch|E: )' /tmp/ttypair-refresh.log ;;
	dnf) dnf -q makecache > /tmp/ttypair-refresh.log 2>&1 ;;
	zypper) zypper --non-interactive refresh > /tmp/ttypair-refresh.log 2>&1 ;;
	esac || {
		grep -E '^(E|W|Err|Error)' /tmp/ttypair-refresh.log | head -n 5 >&2
		say "could not update the package lists: no network, or the distribution's" \
		    "archive cannot be reached; going on with the lists this machine already has"
	}
	rm -f /tmp/ttypair-refresh.log
}

# pkg_installed PKG: whether PKG is installed
pkg_installed() {
	case $(pkgmgr) in
	apt-get) dpkg-query -W -f '${Status}' "$1" 2>/dev/null | grep -q 'ok installed' ;;
	dnf | zypper) rpm -q --whatprovides "$1" > /dev/null 2>&1 ;;
	*) return 1 ;;
	esac
}

# pkg_install PKG...: install packages with the package manager
pkg_install() {
	refresh
	say "installing $* with $(pkgmgr)"
	case $(pkgmgr) in
	apt-get) DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" ;;
	dnf) dnf install -y "$@" ;;
	zypper) zypper --non-interactive install "$@" ;;
	*) return 1 ;;
	esac
}

# fedora_newest_devel: the kernel-devel the repositories have (Fedora keeps
# only the newest kernel's). dnf5 ends a --qf line only where the format
# says so, dnf4 after each package as well: the empty lines go.
fedora_newest_devel() {
	dnf -q repoquery --latest-limit 1 --qf '%{version}-%{release}.%{arch}\n' kernel-devel 2>/dev/null |
		sed '/^$/d' | tail -n 1
}

# ensure_headers KVER: install the headers of KVER and its flavour's
# metapackage (which brings the headers of the kernels to come), when KVER
# is a kernel of this machine's distribution (not in a container or a
# chroot, where uname -r is the host's); say what could not be installed,
# and why when it is known
ensure_headers() {
	if [ -d "/lib/modules/$1/kernel" ] && [ "$(pkgmgr)" != none ]; then
		_want=
		[ -d "/lib/modules/$1/build" ] || _want=$(headers_pkg "$1")
		_meta=$(headers_meta "$1")
		if [ -n "$_meta" ] && ! pkg_installed "$_meta"; then
			_want="$_want $_meta"
		fi
		for _p in $_want; do
			pkg_install "$_p" && continue
			case $_p in
			kernel-devel-*)
				_newest=$(fedora_newest_devel)
				if [ -n "$_newest" ] && [ "$_newest" != "$1" ]; then
					say "the repositories have no $_p: they keep the headers of the" \
					    "newest kernel only ($_newest), and ttypair is to be built for $1." \
					    "Update the kernel (sudo dnf upgrade kernel kernel-devel), reboot" \
					    "into it, and run 'sudo make install' again"
				else
					say "could not install $_p; going on with the kernels that have headers"
				fi
				;;
			"$_meta")
				say "could not install $_p: kernels installed later get ttypair only" \
				    "if their headers are installed too"
				;;
			*)
				say "could not install $_p; going on with the kernels that have headers"
				;;
			esac
		done
	elif [ ! -d "/lib/modules/$1/build" ]; then
		say "kernel $1 has no headers here: install $(headers_pkg "$1")"
	fi
}

# packaged_files FILE...: "FILE (PACKAGE)" for each FILE (or directory) a
# package of dpkg or rpm owns
packaged_files() {
	for _f in "$@"; do
		[ -e "$_f" ] || continue
		_o=
		if command -v dpkg-query > /dev/null 2>&1; then
			_o=$(dpkg-query -S "$_f" 2>/dev/null | sed -n '1s/: .*//p')
		fi
		if [ -z "$_o" ] && command -v rpm > /dev/null 2>&1; then
			_o=$(rpm -qf --qf '%{NAME}\n' "$_f" 2>/dev/null | grep -v 'not owned' | head -n 1)
		fi
		[ -z "$_o" ] || echo "$_f ($_o)"
	done
}

# excluded KVER: whether dkms.conf's BUILD_EXCLUSIVE_KERNEL leaves KVER out
# (dkms matches it as an extended regular expression)
excluded() {
	_re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$SRC/dkms.conf")
	[ -n "$_re" ] && ! echo "$1" | grep -Eq "$_re"
}

# refuse_if_packaged WHAT FILE...: stop before WHAT (install or uninstall)
# touches a file of ttypair's packages (ttypair-dkms, dkms-ttypair,
# ttypair-utils): make install and the packages must not mix
refuse_if_packaged() {
	_what=$1
	shift
	_owned=$(packaged_files /usr/src/$NAME-* "$@")
	[ -n "$_owned" ] || return 0
	echo "ttypair: these files belong to an installed package:" >&2
	echo "$_owned" | sed 's/^/    /' >&2
	die "make $_what would replace or remove them: use the package" \
	    "(or remove it first: apt remove ttypair-dkms ttypair-utils, dnf remove dkms-ttypair ttypair-utils)"
}

# mok_certificate [KVER]: the certificate this machine's dkms signs modules
# with (what dkms 3 does, read from its sources): mok_certificate of
# /etc/dkms/framework.conf or framework.conf.d/*.conf (the last one that sets
# it; they may use $kernelver); else, on Ubuntu and its derivatives unless
# a signing key is configured, /var/lib/shim-signed/mok/MOK.der; else dkms's
# own /var/lib/dkms/mok.pub
mok_certificate() (
	# shellcheck disable=SC2034 # (framework.conf's paths may use it)
	kernelver=${1:-$(uname -r)}
	mok_signing_key= mok_certificate=
	for _f in /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; do
		# shellcheck disable=SC1090
		[ -f "$_f" ] && [ -r "$_f" ] && . "$_f" > /dev/null 2>&1
	done
	if [ -z "$mok_signing_key" ] && [ -z "$mok_certificate" ]; then
		for _f in /etc/os-release /usr/lib/os-release; do
			[ -e "$_f" ] || continue
			# shellcheck disable=SC1090
			case $(. "$_f"; [ "$ID" = ubuntu ] && echo ubuntu || echo "${ID_LIKE:-$ID}") in
			ubuntu*) echo /var/lib/shim-signed/mok/MOK.der; exit 0 ;;
			esac
			break
		done
	fi
	echo "${mok_certificate:-/var/lib/dkms/mok.pub}"
)

# secure_boot_note [KVER]: how to enrol dkms's key, when Secure Boot is on
secure_boot_note() {
	command -v mokutil > /dev/null 2>&1 || return 0
	mokutil --sb-state 2>/dev/null | grep -q 'SecureBoot enabled' || return 0
	_cert=$(mok_certificate "${1:-}")
	if mokutil --test-key "$_cert" 2>/dev/null | grep -q 'already enrolled'; then
		say "Secure Boot is on; dkms's signing key $_cert is enrolled"
		return 0
	fi
	say "Secure Boot is on: the kernel loads ttypair only once the key dkms signs" \
	    "with is enrolled. Once: sudo mokutil --import $_cert; reboot, and choose" \
	    "'Enroll MOK' in MokManager"
}
