#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Builds of the tree by hand, run inside a target chroot:
#   build-checks.sh KVER SRC
# SRC is a copy of the project that this script may build in. Prints
# "ok - NAME" or "not ok - NAME: reason".
set -u
KVER=$1
SRC=$2
cd "$SRC" || exit 1

. "$(dirname "$0")/../lib/tap.sh"

tree_state() { find . -path ./tests/out -prune -o -print | LC_ALL=C sort; }

# make KDIR=... W=1: zero warnings, and the module is built for KVER
t_build_w1() {
	tree_state > /tmp/tree.before
	make KDIR="/lib/modules/$KVER/build" W=1 > /tmp/build.log 2>&1 ||
		{ cat /tmp/build.log; return 1; }
	cat /tmp/build.log
	if grep -E "warning:|error:" /tmp/build.log; then
		echo "the W=1 build printed warnings"
		return 1
	fi
	vm=$(modinfo -F vermagic ttypair.ko)
	case "$vm" in
	"$KVER "*) ;;
	*) echo "vermagic '$vm' is not for $KVER"; return 1 ;;
	esac
}

t_clean() {
	make KDIR="/lib/modules/$KVER/build" clean > /tmp/clean.log 2>&1 ||
		{ cat /tmp/clean.log; return 1; }
	tree_state > /tmp/tree.after
	diff -u /tmp/tree.before /tmp/tree.after || { echo "make clean left files behind"; return 1; }
}

# The Makefile builds for the kernel it is given, never for uname -r: here
# uname -r is the build machine's kernel, which has no headers in the chroot.
t_kernel_choice() {
	running=$(uname -r)
	[ ! -d "/lib/modules/$running/build" ] ||
		{ echo "the build machine's kernel $running has headers here"; return "$TAP_SKIP"; }
	if make > /tmp/noarg.log 2>&1; then
		echo "make without KVER built for a kernel without headers?"
		return 1
	fi
	grep -q "no kernel build directory at /lib/modules/$running/build" /tmp/noarg.log &&
		grep -q "linux-headers-$running" /tmp/noarg.log ||
		{ cat /tmp/noarg.log; echo "no clear message naming the headers"; return 1; }
	make KERNELRELEASE="$KVER" > /tmp/kr.log 2>&1 || { cat /tmp/kr.log; return 1; }
	vm=$(modinfo -F vermagic ttypair.ko)
	make KVER="$KVER" clean > /dev/null 2>&1
	case "$vm" in
	"$KVER "*) ;;
	*) echo "KERNELRELEASE=$KVER built for '$vm'"; return 1 ;;
	esac
}

# sparse over the module's sources (make C=1), where sparse is usable: the
# build of newer kernels refuses a sparse it finds too old, and then this
# check is reported as skipped.
sparse_run() {
	command -v sparse > /dev/null || { echo "sparse is not installed"; return 1; }
	make KVER="$KVER" C=1 > /tmp/sparse.log 2>&1
	rc=$?
	make KVER="$KVER" clean > /dev/null 2>&1
	if grep -q "sparse is not available or not up to date" /tmp/sparse.log; then
		echo "this kernel's build refuses $(sparse --version)"
		return 1
	fi
	# usable: t_sparse judges the output (a failed build has no CHECK lines)
	echo "make C=1 exited $rc" >> /tmp/sparse.log
	return 0
}

t_sparse() {
	cat /tmp/sparse.log
	grep -E "^  CHECK" /tmp/sparse.log || { echo "sparse did not run"; return 1; }
	if grep -E "(src|include)/[^:]*:[0-9]+:[0-9]+: (warning|error)" /tmp/sparse.log; then
		echo "sparse reported problems"
		return 1
	fi
}

step build_w1_no_warnings t_build_w1
step make_clean_restores_tree t_clean
step build_for_named_kernel_only t_kernel_choice
if why=$(sparse_run); then
	step sparse_clean t_sparse
else
	skip sparse_clean "$why"
fi
