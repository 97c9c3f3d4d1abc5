#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make install` and `make uninstall` as a user runs them, inside a target
# chroot (whose running kernel, the build machine's, cannot load modules):
#   make-install.sh KVER SRC
# The module's path is asked of modinfo, not assumed: dkms installs to
# /updates/dkms on Debian, /extra on Fedora, /updates on openSUSE.
set -u
KVER=$1
SRC=$2
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$SRC/dkms.conf")
OLD=4.19.0-99-amd64

. "$(dirname "$0")/../lib/tap.sh"

# installed_for KVER: the module dkms installed for KVER, by modinfo
installed_for() {
	_f=$(modinfo -k "$1" -F filename ttypair 2>/dev/null) || return 1
	[ -f "$_f" ] && echo "$_f"
}

# The headers metapackage of KVER's flavour installed here (the package
# that depends on linux-headers-KVER: linux-headers-amd64, ...), if apt
# would install the same version of it again
META=$(dpkg-query -W -f '${Package} ${Version}\t${Depends}\n' 'linux-headers-*' 2>/dev/null |
	awk -F '\t' -v k="linux-headers-$KVER " '$1 !~ /^linux-headers-[0-9]/ && index($2 " ", k) { print $1 }' |
	head -n 1)
META_PKG=${META% *}
if [ -n "$META" ]; then
	# (a metapackage from backports is not what apt installs by default;
	# without package lists, apt knows only the installed version)
	if apt-get update -q > /tmp/meta-update.log 2>&1 &&
		! grep -Eq '^(Err:|W: Failed to fetch|E: )' /tmp/meta-update.log; then
		# the installed version must come from a source of priority 500,
		# or apt installs another one once it is removed
		apt-cache policy "$META_PKG" > /tmp/meta-policy.log
		awk -v v="${META#* }" '
			$1 == "***" { f = ($2 == v); next }
			f && $1 ~ /^[0-9]+$/ { if ($1 == 500) ok = 1; next }
			{ f = 0 }
			END { exit !ok }' /tmp/meta-policy.log || META=
	else
		META=
	fi
fi
echo "# headers metapackage to take away and get back: ${META:-none}" >&2

# A package that owns ttypair's files: make install and make uninstall
# must stop before they touch anything
t_refuses_package() {
	d=/tmp/fake-ttypair-dkms
	rm -rf $d && mkdir -p $d/DEBIAN $d/usr/src/ttypair-0.0.1
	printf 'Package: ttypair-dkms\nVersion: 0.0.1-1\nArchitecture: all\nMaintainer: tests <t@t.invalid>\nDescription: stands for the real package\n' \
		> $d/DEBIAN/control
	echo 'PACKAGE_VERSION="0.0.1"' > $d/usr/src/ttypair-0.0.1/dkms.conf
	dpkg-deb -b $d /tmp/fake-ttypair-dkms.deb > /dev/null && dpkg -i /tmp/fake-ttypair-dkms.deb > /dev/null ||
		return 1
	touch /tmp/refused.mark
	sleep 1
	rc=0
	for what in install uninstall; do
		make -C "$SRC" $what > /tmp/refused.log 2>&1 && { cat /tmp/refused.log; rc=1; }
		grep -q "belong to an installed package" /tmp/refused.log ||
			{ cat /tmp/refused.log; echo "make $what did not name the package's files"; rc=1; }
		grep -q "/usr/src/ttypair-0.0.1 (ttypair-dkms)" /tmp/refused.log || rc=1
	done
	cat /tmp/refused.log
	[ -f /usr/src/ttypair-0.0.1/dkms.conf ] || { echo "the package's files were removed"; rc=1; }
	changed=$(find /usr/src /usr/local /etc/udev /var/lib/dkms /lib/modules -newer /tmp/refused.mark 2>/dev/null)
	[ -z "$changed" ] || { echo "$changed"; echo "make install or uninstall changed the files above"; rc=1; }
	[ -z "$(dkms status -m ttypair)" ] || { dkms status -m ttypair; rc=1; }
	dpkg -r ttypair-dkms > /dev/null || rc=1
	return $rc
}

# One install as many machines meet it: no network, a kernel too old for
# ttypair with headers, and the headers metapackage removed. Its steps
# below read what it left in /tmp/offline.*
offline_install() {
	mkdir -p "/lib/modules/$OLD"
	ln -sfn "/lib/modules/$KVER/build" "/lib/modules/$OLD/build"
	[ -z "$META" ] || apt-get remove -y -q "$META_PKG" > /dev/null 2>&1
	# an archive that cannot be reached
	mkdir -p /tmp/offline-lists/partial
	printf 'deb http://127.0.0.1:9/debian unreachable main\n' > /tmp/offline.list
	printf 'Dir::Etc::sourcelist "/tmp/offline.list";\nDir::Etc::sourceparts "/nonexistent";\nDir::State::Lists "/tmp/offline-lists";\nAcquire::Retries "0";\n' \
		> /tmp/offline.conf
	rc=0
	APT_CONFIG=/tmp/offline.conf make -C "$SRC" install KVER="$KVER" > /tmp/offline.log 2>&1 || rc=$?
	echo "$rc" > /tmp/offline.rc
	rm -rf "/lib/modules/$OLD"
}

t_offline() {
	cat /tmp/offline.log
	[ "$(cat /tmp/offline.rc)" = 0 ] || { echo "make install failed without a network"; return 1; }
	if [ -n "$META" ]; then
		# it had a package to install: it tried, and said why it could not
		grep -q "could not update the package lists: no network" /tmp/offline.log ||
			{ echo "no plain word that the package lists could not be updated"; return 1; }
	else
		# nothing was missing: the package manager is left alone
		! grep -q "updating the package lists" /tmp/offline.log ||
			{ echo "updated the package lists with nothing to install"; return 1; }
	fi
	installed_for "$KVER" || { echo "not installed for $KVER"; return 1; }
}

t_old_kernel() {
	grep -q "skipped kernel $OLD: ttypair needs Linux 5.10 or newer" /tmp/offline.log ||
		{ echo "$OLD is not reported as skipped"; return 1; }
	! grep -q "the build failed for" /tmp/offline.log || { echo "$OLD reported as failed"; return 1; }
	[ "$(cat /tmp/offline.rc)" = 0 ] || return 1
}

t_install() {
	make -C "$SRC" install KVER="$KVER" > /tmp/install.log 2>&1 || { cat /tmp/install.log; return 1; }
	cat /tmp/install.log
	dkms status -m ttypair | grep -Fxq -e "ttypair/$VER, $KVER, $(uname -m): installed" \
		-e "ttypair, $VER, $KVER, $(uname -m): installed" ||
		{ echo "not installed for $KVER"; return 1; }
	installed_for "$KVER" || { echo "modinfo -k $KVER finds no ttypair"; return 1; }
	[ -f "/usr/src/ttypair-$VER/dkms.conf" ] || { echo "no /usr/src/ttypair-$VER"; return 1; }
	# ttypairctl, its manual pages and the udev rules, outside DKMS
	for f in /usr/local/bin/ttypairctl /usr/local/share/man/man4/ttypair.4 \
		/usr/local/share/man/man8/ttypairctl.8 /etc/udev/rules.d/60-ttypair.rules; do
		[ -f "$f" ] || { echo "make install did not install $f"; return 1; }
	done
	[ "$(/usr/local/bin/ttypairctl --version)" = "ttypairctl $VER" ] ||
		{ echo "ttypairctl --version: $(/usr/local/bin/ttypairctl --version)"; return 1; }
	cmp -s "$SRC/udev/60-ttypair.rules" /etc/udev/rules.d/60-ttypair.rules || return 1
	grep -q "cannot load modules" /tmp/install.log ||
		{ echo "no plain word that this kernel cannot load modules"; return 1; }
	# a second install replaces the first: one version, as many kernels
	make -C "$SRC" install > /tmp/install2.log 2>&1 || { cat /tmp/install2.log; return 1; }
	[ "$(dkms status -m ttypair | sed -n 's/^ttypair[/,] *\([^,:]*\)[,:].*/\1/p' | sort -u)" = "$VER" ] &&
		[ "$(dkms status -m ttypair | grep -c ': installed$')" = "$(ls -d /lib/modules/*/build | wc -l)" ] ||
		{ dkms status -m ttypair; return 1; }
	# (by now the tree holds a built utils/ttypairctl)
	! ls /usr/src/ttypair-"$VER"/utils/ttypairctl 2>/dev/null ||
		{ echo "the ttypairctl binary was copied into the DKMS sources"; return 1; }
}

# The install with a network put back the metapackage the offline one
# could not: the next kernel of this flavour gets its headers, and ttypair
t_metapackage() {
	[ -n "$META" ] || {
		echo "no headers metapackage that apt would install again for $KVER"
		return "$TAP_SKIP"
	}
	grep -q "could not install $META_PKG" /tmp/offline.log ||
		{ echo "the offline install did not say it could not install $META_PKG"; return 1; }
	dpkg-query -W -f '${Status}' "$META_PKG" | grep -q 'ok installed' ||
		{ echo "$META_PKG is not installed"; return 1; }
	grep -q "installing $META_PKG" /tmp/install.log || return 1
	echo "$META_PKG installed again by make install"
}

# The certificate make install tells the user to enrol is the one this
# machine's dkms signs with: configured in framework.conf (what dkms
# printed while signing, where this dkms signs), Ubuntu's, or dkms's own
t_certificate() {
	rc=0
	printed=$(sed -n 's/^Public certificate (MOK): //p' /tmp/install.log | tail -n 1)
	ours=$(. "$SRC/scripts/install-lib.sh" && mok_certificate "$KVER")
	echo "dkms printed '${printed:-nothing (this dkms does not sign)}'; make install names '$ours'"
	[ "$ours" = /root/ttypair-mok/cert.der ] || rc=1
	[ -z "$printed" ] || [ "$printed" = "$ours" ] || rc=1
	cp /etc/dkms/framework.conf.orig /etc/dkms/framework.conf
	ours=$(. "$SRC/scripts/install-lib.sh" && mok_certificate "$KVER")
	echo "without that setting: '$ours'"
	[ "$ours" = /var/lib/dkms/mok.pub ] || rc=1
	# an Ubuntu derivative
	mv /etc/os-release /etc/os-release.orig &&
		printf 'ID=pop\nID_LIKE="ubuntu debian"\n' > /etc/os-release || return 1
	ours=$(. "$SRC/scripts/install-lib.sh" && mok_certificate "$KVER")
	echo "on an Ubuntu derivative: '$ours'"
	[ "$ours" = /var/lib/shim-signed/mok/MOK.der ] || rc=1
	mv /etc/os-release.orig /etc/os-release
	return $rc
}

t_uninstall() {
	make -C "$SRC" uninstall || return 1
	[ -z "$(dkms status -m ttypair)" ] || { dkms status -m ttypair; return 1; }
	[ -z "$(find /lib/modules -name 'ttypair.ko*')" ] || { find /lib/modules -name 'ttypair.ko*'; return 1; }
	! ls -d /usr/src/ttypair-* 2>/dev/null || return 1
	[ ! -e /var/lib/dkms/ttypair ] || { echo "/var/lib/dkms/ttypair left"; return 1; }
	for f in /usr/local/bin/ttypairctl /usr/local/share/man/man4/ttypair.4 \
		/usr/local/share/man/man8/ttypairctl.8 /etc/udev/rules.d/60-ttypair.rules; do
		[ ! -e "$f" ] || { echo "make uninstall left $f"; return 1; }
	done
}

step make_install_refuses_package_files t_refuses_package
offline_install
step make_install_without_network t_offline
step make_install_skips_old_kernel t_old_kernel
# dkms signs with a key of the administrator's choosing (the one the
# harness gave it, tests/target.sh, is put aside: a file of
# framework.conf.d would win)
mkdir -p /root/ttypair-mok /root/framework.conf.d.aside
mv /etc/dkms/framework.conf.d/*.conf /root/framework.conf.d.aside/ 2>/dev/null
cp /etc/dkms/framework.conf /etc/dkms/framework.conf.orig
printf 'mok_signing_key=/root/ttypair-mok/key.priv\nmok_certificate=/root/ttypair-mok/cert.der\n' \
	>> /etc/dkms/framework.conf
step make_install t_install
step make_install_names_dkms_certificate t_certificate
step make_install_headers_metapackage t_metapackage
step make_uninstall t_uninstall
