#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make install DESTDIR=...`, as a PKGBUILD, an ebuild or a spec file runs
# it, on the build machine: the files are staged, and nothing else happens.
# Every command that would change the system is replaced by one that only
# writes down that it was called.
set -u
TTYPAIR_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$TTYPAIR_SRC/tests/lib/common.sh"
TTYPAIR_STAGE=install
VER=$(ttypair_version)
D=$TTYPAIR_OUT/install-destdir

# What dkms needs in /usr/src/ttypair-<version>: its configuration, the
# build files and every source, header and feature probe of the tree
dkms_sources() {
	echo dkms.conf
	echo Kbuild
	echo Makefile
	(cd "$D/tree" && find src include compat -type f) | LC_ALL=C sort
}

staged() { (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# make ARGS... in the copy of the tree, with the shims first on PATH
shimmed_make() {
	PATH=$D/shims:$PATH make -C "$D/tree" "$@" > "$D/make.log" 2>&1 ||
		{ cat "$D/make.log"; return 1; }
}

t_destdir() {
	rm -rf "$D" && mkdir -p "$D/shims" "$D/tree" || return 1
	copy_tree "$D/tree"
	for c in apt-get apt dnf zypper pacman dpkg dpkg-query rpm dkms modprobe \
		rmmod depmod udevadm mokutil systemctl; do
		printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\nexit 1\n' "$c" "$D" > "$D/shims/$c"
		chmod +x "$D/shims/$c"
	done
	: > "$D/calls"
	ls /usr/src > "$D/usr-src.before"

	# A package's install: PREFIX=/usr
	shimmed_make install DESTDIR="$D/pkg" PREFIX=/usr || return 1
	{
		dkms_sources | sed "s|^|usr/src/ttypair-$VER/|"
		echo usr/bin/ttypairctl
		echo usr/lib/udev/rules.d/60-ttypair.rules
		echo usr/share/man/man4/ttypair.4
		echo usr/share/man/man8/ttypairctl.8
	} | LC_ALL=C sort > "$D/want"
	staged "$D/pkg" > "$D/got"
	diff -u "$D/want" "$D/got" || { echo "DESTDIR=... PREFIX=/usr staged other files"; return 1; }
	for f in $(dkms_sources); do
		cmp "$D/tree/$f" "$D/pkg/usr/src/ttypair-$VER/$f" || return 1
	done
	[ "$(stat -c %a "$D/pkg/usr/bin/ttypairctl")" = 755 ] || return 1
	[ "$("$D/pkg/usr/bin/ttypairctl" --version)" = "ttypairctl $VER" ] || return 1

	# The defaults: /usr/local, and the administrator's udev directory
	shimmed_make install DESTDIR="$D/local" || return 1
	staged "$D/local" | grep -v "^usr/src/ttypair-$VER/" > "$D/got-local"
	printf '%s\n' etc/udev/rules.d/60-ttypair.rules usr/local/bin/ttypairctl \
		usr/local/share/man/man4/ttypair.4 usr/local/share/man/man8/ttypairctl.8 |
		diff -u - "$D/got-local" || return 1

	# make uninstall DESTDIR=... removes what was staged, and only that
	mkdir -p "$D/pkg/usr/bin/other" && touch "$D/pkg/usr/bin/other/keep"
	shimmed_make uninstall DESTDIR="$D/pkg" PREFIX=/usr || return 1
	[ "$(staged "$D/pkg")" = usr/bin/other/keep ] ||
		{ staged "$D/pkg"; echo "make uninstall DESTDIR=... left or removed other files"; return 1; }

	# Nothing was run that changes the system
	if [ -s "$D/calls" ]; then
		cat "$D/calls"
		echo "make install/uninstall with DESTDIR ran the commands above"
		return 1
	fi
	ls /usr/src | diff -u "$D/usr-src.before" - || { echo "/usr/src changed"; return 1; }
	echo "staged $(wc -l < "$D/want") files; no package manager, dkms, modprobe or udevadm was run"
}
t_check destdir_install_stages_only t_destdir

# The udev rules set no group, owner or mode on a port: systemd's
# 50-udev-default.rules gives every tty[A-Z]*[0-9] the distribution's
# serial group (dialout; uucp on Arch, which has no dialout and would log
# an unknown group for ours) and so mode 0660. Only /dev/ttypair-session, a
# misc device systemd knows nothing of, gets the serial group here (the
# Arch package writes uucp). The guests check the result with each
# distribution's udevd (udev_rules_group_mode_symlinks, session_device_*).
t_udev_rules() {
	bad=$(grep -nE '^[^#]*(GROUP|OWNER|MODE)[:+]?=' "$TTYPAIR_SRC/udev/60-ttypair.rules" |
		grep -vF 'SUBSYSTEM=="misc", KERNEL=="ttypair-session", GROUP="dialout", MODE="0660"')
	[ -z "$bad" ] || { echo "$bad"; echo "udev/60-ttypair.rules sets what systemd's rules set"; return 1; }
	# and systemd's rule covers every name a port can have
	for n in ttyVPA0 ttyVPB9 ttyVPA10 ttyVPB1023; do
		case $n in
		tty[A-Z]*[0-9]) ;;
		*) echo "$n is not a tty[A-Z]*[0-9]"; return 1 ;;
		esac
	done
	echo "no GROUP, OWNER or MODE; systemd's tty[A-Z]*[0-9] rule matches the ports' names"
}
t_check udev_rules_only_what_systemd_lacks t_udev_rules

# The packages make install asks the package manager for: the headers of
# the kernel and the metapackage of its flavour, from the kernel's release,
# for each naming scheme in use (Debian old and new, Ubuntu, Raspberry Pi
# OS, Fedora, openSUSE)
t_headers_packages() {
	rc=0
	while read -r mgr kver exact meta; do
		got=$(SRC=$TTYPAIR_SRC sh -c '. "$SRC/scripts/install-lib.sh"; MGR=$1; pkgmgr() { echo "$MGR"; }
			echo "$(headers_pkg "$2") $(headers_meta "$2")"' sh "$mgr" "$kver")
		if [ "$got" = "$exact $meta" ]; then
			echo "$mgr $kver: $got"
		else
			echo "$mgr $kver: '$got', expected '$exact $meta'"
			rc=1
		fi
	done <<-'TABLE'
	apt-get 6.1.0-50-amd64 linux-headers-6.1.0-50-amd64 linux-headers-amd64
	apt-get 6.1.0-50-rt-amd64 linux-headers-6.1.0-50-rt-amd64 linux-headers-rt-amd64
	apt-get 6.1.0-50-cloud-amd64 linux-headers-6.1.0-50-cloud-amd64 linux-headers-cloud-amd64
	apt-get 6.12.117+deb13-amd64 linux-headers-6.12.117+deb13-amd64 linux-headers-amd64
	apt-get 6.12.117+deb13-arm64 linux-headers-6.12.117+deb13-arm64 linux-headers-arm64
	apt-get 7.2.13+deb14-amd64 linux-headers-7.2.13+deb14-amd64 linux-headers-amd64
	apt-get 5.10.0-32-686-pae linux-headers-5.10.0-32-686-pae linux-headers-686-pae
	apt-get 6.8.0-45-generic linux-headers-6.8.0-45-generic linux-headers-generic
	apt-get 6.8.0-1012-aws linux-headers-6.8.0-1012-aws linux-headers-aws
	apt-get 6.6.51+rpt-rpi-v8 linux-headers-6.6.51+rpt-rpi-v8 linux-headers-rpi-v8
	dnf 6.11.4-301.fc41.x86_64 kernel-devel-6.11.4-301.fc41.x86_64 kernel-devel
	zypper 6.4.0-150600.23.25-default kernel-default-devel kernel-default-devel
	TABLE
	return $rc
}
t_check install_names_headers_packages t_headers_packages

# Fedora keeps only the newest kernel's kernel-devel in its repositories:
# make install on a machine that runs an older kernel says so, and what to
# do. Real dnf (Debian's) against a repository made here that holds the
# newest kernel-devel only; dnf's configuration, its state, the rpm database
# and /lib/modules are replaced in a mount namespace of their own, so this
# machine's are not touched.
t_fedora_older_kernel() {
	F=$TTYPAIR_OUT/install-fedora
	old=6.11.4-301.fc41.x86_64 new=6.12.5-200.fc41.x86_64
	rm -rf "$F" && mkdir -p "$F/rpmbuild/SPECS" "$F/repo" "$F/home" "$F/etc-dnf/vars" \
		"$F/repos.d" "$F/upper/modules/$old/kernel" "$F/upper/modules/$new/kernel" "$F/work" || return 1
	cat > "$F/rpmbuild/SPECS/kernel-devel.spec" <<-SPEC
	Name: kernel-devel
	Version: ${new%%-*}
	Release: 200.fc41
	Summary: Stand-in for the headers of Fedora's newest kernel
	License: GPL-2.0-only
	BuildArch: x86_64
	Provides: kernel-devel-uname-r = $new
	%description
	The newest kernel's kernel-devel, as Fedora's repositories keep it.
	%files
	SPEC
	HOME=$F/home rpmbuild -bb --define "_topdir $F/rpmbuild" \
		"$F/rpmbuild/SPECS/kernel-devel.spec" > "$F/rpmbuild.log" 2>&1 ||
		{ tail -n 20 "$F/rpmbuild.log"; return 1; }
	cp "$F"/rpmbuild/RPMS/x86_64/*.rpm "$F/repo/" && createrepo_c -q "$F/repo" || return 1
	printf '[main]\nreposdir=%s/repos.d\ncachedir=%s/cache\npersistdir=%s/lib\nlogdir=%s\ngpgcheck=0\n' \
		"$F" "$F" "$F" "$F" > "$F/etc-dnf/dnf.conf"
	echo 41 > "$F/etc-dnf/vars/releasever"
	printf '[fedora]\nname=newest kernel-devel only\nbaseurl=file://%s/repo\ngpgcheck=0\n' \
		"$F" > "$F/repos.d/fedora.repo"
	# make install's own functions (scripts/install-lib.sh), on "Fedora"
	for k in $old $new; do
		echo "== kernel $k"
		unshare --mount --propagation private sh -c '
			F=$1 SRC=$2 K=$3
			mount -t overlay overlay -o "lowerdir=/usr/lib,upperdir=$F/upper,workdir=$F/work" /usr/lib &&
			mount --bind "$F/etc-dnf" /etc/dnf || exit 1
			export HOME=$F/home
			. "$SRC/scripts/install-lib.sh"
			pkgmgr() { echo dnf; }
			ensure_headers "$K"
			echo "installed: $(rpm -qa | xargs)"
		' sh "$F" "$TTYPAIR_SRC" "$k" > "$F/$k.log" 2>&1
		grep -E '^(ttypair|installed):' "$F/$k.log"
	done
	grep -qF "ttypair: the repositories have no kernel-devel-$old: they keep the headers of the newest kernel only ($new), and ttypair is to be built for $old." "$F/$old.log" ||
		{ echo "no word of the newest kernel-devel for $old"; return 1; }
	grep -q "^installed: kernel-devel-$new\$" "$F/$old.log" ||
		{ echo "the metapackage kernel-devel was not installed"; return 1; }
	! grep -q "repositories have no\|could not install" "$F/$new.log" ||
		{ echo "the newest kernel's kernel-devel was not installed"; return 1; }
}
t_check install_fedora_names_newest_kernel_devel t_fedora_older_kernel
