#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel older than ttypair supports is skipped, not failed: run inside a
# target chroot after `dkms add`, with a fake 4.19 kernel whose build
# directory exists (so only dkms.conf's BUILD_EXCLUSIVE_KERNEL can skip it).
#   dkms-exclusive.sh KVER
set -u
KVER=$1
OLD=4.19.0-99-amd64
VER=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' /usr/src/ttypair-*/dkms.conf | head -n 1)

. "$(dirname "$0")/../lib/tap.sh"

cleanup() { rm -rf "/lib/modules/$OLD" "/boot/vmlinuz-$OLD"; }

t_exclusive() {
	mkdir -p "/lib/modules/$OLD"
	ln -s "/lib/modules/$KVER/build" "/lib/modules/$OLD/build"
	dkms build -m ttypair -v "$VER" -k "$OLD"
	rc=$?
	echo "dkms build -k $OLD exited $rc"
	case $rc in
	77|9) ;;
	*) echo "expected a skip (77, or 9 with dkms 2.8)"; return 1 ;;
	esac
	[ ! -e "/var/lib/dkms/ttypair/$VER/$OLD" ] || { echo "something was built for $OLD"; return 1; }
}

# What the package manager runs when such a kernel is installed: the kernel
# postinst hook of dkms must succeed, leaving nothing for that kernel.
# A dkms without such a hook cannot show it: skipped, not passed.
t_hook() {
	case $dkmsver in
	3.0.[0-9] | 3.0.10) t_hook_known_bug; return ;;
	esac
	touch "/boot/vmlinuz-$OLD"
	ran=
	for hook in /etc/kernel/postinst.d/dkms /etc/kernel/header_postinst.d/dkms; do
		[ -x "$hook" ] || continue
		"$hook" "$OLD" "/boot/vmlinuz-$OLD" || { echo "$hook $OLD failed"; return 1; }
		echo "$hook $OLD: exit 0"
		ran=1
	done
	[ -n "$ran" ] || { echo "dkms $dkmsver has no executable kernel hook"; return "$TAP_SKIP"; }
	[ ! -e "/var/lib/dkms/ttypair/$VER/$OLD" ] || { echo "something was built for $OLD"; return 1; }
	! ls /lib/modules/$OLD/updates/dkms/ttypair.ko* 2>/dev/null || { echo "installed for $OLD"; return 1; }
	dkms status -m ttypair | grep -q "$OLD" && { echo "dkms status lists $OLD"; return 1; }
	return 0
}

# dkms 3.0.0 to 3.0.10 (Debian 12's is 3.0.10) count any BUILD_EXCLUSIVE skip
# as a failed autoinstall, so their kernel hook fails for every module that
# excludes the kernel (dkms-project/dkms#302, fixed in 3.0.11). Check that
# this, and nothing else, is what happens there; the hook's success cannot be
# seen with such a dkms, so the step is skipped (a failure of any other kind
# fails it).
t_hook_known_bug() {
	touch "/boot/vmlinuz-$OLD"
	if /etc/kernel/postinst.d/dkms "$OLD" "/boot/vmlinuz-$OLD" > /tmp/hook.log 2>&1; then
		cat /tmp/hook.log
		echo "the hook succeeded: this dkms has the fix; update this test"
		return 1
	fi
	cat /tmp/hook.log
	grep -q "includes a BUILD_EXCLUSIVE directive which does not match" /tmp/hook.log ||
		{ echo "the hook failed for another reason"; return 1; }
	[ ! -e "/var/lib/dkms/ttypair/$VER/$OLD/$(uname -m)/module" ] || { echo "something was built for $OLD"; return 1; }
	echo "dkms $dkmsver has bug #302: its hook fails on the skip (as expected), nothing was built"
	return "$TAP_SKIP"
}

dkmsver=$(dkms --version 2>/dev/null | sed -n 's/^dkms[- :]*\([0-9.]*\).*/\1/p')
step dkms_skips_old_kernel t_exclusive
step kernel_hook_skips_old_kernel t_hook
cleanup
